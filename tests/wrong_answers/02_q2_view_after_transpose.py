# Question 2 (1 point): find the bug in merge_heads
# WRONG: transpose then view: the transposed heads are not contiguous, so view raises.
def merge_heads(x):
    "(batch, h, len, d_k) -> (batch, len, h * d_k): the heads of each position side by side"
    b, h, n, d_k = x.shape
    return x.transpose(1, 2).view(b, n, h * d_k)
