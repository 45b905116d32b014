# Question 2 (2 points): target_mask
# WRONG: the padding is masked on the query axis (rows) instead of the key axis (columns).
from transformer.attention import causal_mask, padding_mask

def target_mask(tgt, pad_id):
    "(batch, 1, len, len): causal and padding masks combined."
    return (tgt != pad_id)[:, None, :, None] & causal_mask(tgt.size(1))
