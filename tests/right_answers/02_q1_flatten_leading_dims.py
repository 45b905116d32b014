# Question 1 (2 points): split_heads with any leading dimensions
# RIGHT: fold the leading dimensions into one batch, split as in the chapter, unfold them again.
def split_heads(x, h):
    "(..., len, d_model) -> (..., h, len, d_k)"
    lead, (n, d_model) = x.shape[:-2], x.shape[-2:]
    flat = x.reshape(-1, n, d_model)
    heads = flat.reshape(flat.size(0), n, h, d_model // h).permute(0, 2, 1, 3)
    return heads.reshape(*lead, h, n, d_model // h)
