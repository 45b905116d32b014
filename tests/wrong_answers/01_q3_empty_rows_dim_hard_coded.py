# Question 3 (3 points): scaled_dot_product_attention
# WRONG: the package's empty-row handling with the key dimension hard-coded as dim=3: masks of other ranks fail.
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is None:
        return scores.softmax(dim=-1) @ value
    empty = ~mask.any(dim=3, keepdim=True)
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(empty, 0.0)
    return scores.softmax(dim=-1).masked_fill(empty, 0.0) @ value
