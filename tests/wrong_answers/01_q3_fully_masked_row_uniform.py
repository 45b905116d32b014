# Question 3 (3 points): scaled_dot_product_attention
# WRONG: -1e9 instead of -inf and no clean-up, so a fully masked row averages all values.
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    return scores.softmax(dim=-1) @ value
