# Question 2 (1 point): find the bug in merge_heads
# RIGHT: permute to (batch, len, h, d_k), then flatten the last two dimensions.
def merge_heads(x):
    "(batch, h, len, d_k) -> (batch, len, h * d_k): the heads of each position side by side"
    return x.permute(0, 2, 1, 3).flatten(start_dim=2)
