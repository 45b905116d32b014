# Question 2 (1 point): find the bug in merge_heads
# WRONG: "fixed" with the wrong transpose: (batch, h, d_k, len) read as (batch, len, h * d_k).
def merge_heads(x):
    "(batch, h, len, d_k) -> (batch, len, h * d_k): the heads of each position side by side"
    b, h, n, d_k = x.shape
    return x.transpose(2, 3).reshape(b, n, h * d_k)
