# Question 1 (2 points): split_heads with any leading dimensions
# WRONG: any leading dimensions in the view, but transpose(1, 2) still assumes exactly one (the batch).
def split_heads(x, h):
    "(..., len, d_model) -> (..., h, len, d_k)"
    return x.view(*x.shape[:-1], h, x.size(-1) // h).transpose(1, 2)
