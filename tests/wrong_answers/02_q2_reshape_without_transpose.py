# Question 2 (1 point): find the bug in merge_heads
# WRONG: the colleague's version unchanged: reshape without the transpose.
def merge_heads(x):
    "(batch, h, len, d_k) -> (batch, len, h * d_k): the heads of each position side by side"
    b, h, n, d_k = x.shape
    return x.reshape(b, n, h * d_k)
