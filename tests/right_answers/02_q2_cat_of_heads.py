# Question 2 (1 point): find the bug in merge_heads
# RIGHT: the formula's Concat taken literally: the heads side by side along the feature dimension.
def merge_heads(x):
    "(batch, h, len, d_k) -> (batch, len, h * d_k): the heads of each position side by side"
    return torch.cat([x[:, i] for i in range(x.size(1))], dim=-1)
