# Question 1 (2 points): split_heads with any leading dimensions
# WRONG: the chapter's (batch, len, d_model) unpacking: an unbatched (len, d_model) input raises.
def split_heads(x, h):
    "(..., len, d_model) -> (..., h, len, d_k)"
    b, n, d_model = x.shape
    return x.view(b, n, h, d_model // h).transpose(1, 2)
