# Question 3 (3 points): scaled_dot_product_attention
# WRONG: unpacks the shape as (batch, heads, len, d): right for 4-D inputs only.
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    b, h, len_q, d_k = query.shape
    scores = torch.matmul(query, key.permute(0, 1, 3, 2)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ value
