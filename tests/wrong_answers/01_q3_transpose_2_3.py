# Question 3 (3 points): scaled_dot_product_attention
# WRONG: transpose(2, 3) hard-codes 4-D inputs (batch, heads, len, d): 3-D inputs raise, 5-D ones transpose the wrong axes.
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    scores = query @ key.transpose(2, 3) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ value
