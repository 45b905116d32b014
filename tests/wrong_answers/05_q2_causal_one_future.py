# Question 2 (2 points): target_mask
# WRONG: a hand-made causal mask that lets each position see one future position.
from transformer.attention import causal_mask, padding_mask

def target_mask(tgt, pad_id):
    "(batch, 1, len, len): causal and padding masks combined."
    n = tgt.size(1)
    future = torch.ones(n, n, dtype=torch.bool).tril(1)
    return (tgt != pad_id)[:, None, None, :] & future
