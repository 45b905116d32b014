# Question 1 (2 points): split_heads with any leading dimensions
# WRONG: view straight to (..., h, len, d_k) without the transpose: the right shape, scrambled contents.
def split_heads(x, h):
    "(..., len, d_model) -> (..., h, len, d_k)"
    *lead, n, d_model = x.shape
    return x.view(*lead, h, n, d_model // h)
