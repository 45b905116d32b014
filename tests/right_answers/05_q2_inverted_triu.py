# Question 2 (2 points): target_mask
# RIGHT: the colleague's triu kept, inverted: ~(True = blocked) is True = may attend.
from transformer.attention import causal_mask, padding_mask

def target_mask(tgt, pad_id):
    "(batch, 1, len, len): causal and padding masks combined."
    n = tgt.size(1)
    blocked = torch.ones(n, n, dtype=torch.bool).triu(diagonal=1)
    return (tgt != pad_id)[:, None, None, :] & ~blocked
