# Question 3 (3 points): scaled_dot_product_attention
# WRONG: the scores compare the queries with themselves (right only for self-attention on one tensor).
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    scores = query @ query.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ value
