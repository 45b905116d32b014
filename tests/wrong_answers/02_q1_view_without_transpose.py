# Question 1 (2 points): split_heads
# WRONG: view straight to (batch, h, len, d_k) without the transpose: the right shape, scrambled contents.
def split_heads(x, h):
    "(batch, len, d_model) -> (batch, h, len, d_k)"
    b, n, d_model = x.shape
    return x.view(b, h, n, d_model // h)
