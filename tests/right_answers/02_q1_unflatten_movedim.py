# Question 1 (2 points): split_heads with any leading dimensions
# RIGHT: unflatten the last dimension into (h, d_k), then move the head dimension in front of len.
def split_heads(x, h):
    "(..., len, d_model) -> (..., h, len, d_k)"
    return x.unflatten(-1, (h, -1)).movedim(-2, -3)
