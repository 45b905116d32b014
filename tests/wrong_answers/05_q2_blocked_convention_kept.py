# Question 2 (2 points): target_mask
# WRONG: the colleague's version unchanged: triu(diagonal=1) marks the future True, PyTorch's "blocked" convention, here "may attend".
from transformer.attention import causal_mask, padding_mask

def target_mask(tgt, pad_id):
    "(batch, 1, len, len): causal and padding masks combined."
    n = tgt.size(1)
    future = torch.ones(n, n, dtype=torch.bool).triu(diagonal=1)
    return (tgt != pad_id)[:, None, None, :] & future
