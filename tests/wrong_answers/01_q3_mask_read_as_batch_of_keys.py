# Question 3 (3 points): scaled_dot_product_attention
# WRONG: a 2-D mask is taken for a (batch, len_k) key mask, as in Hugging Face's attention_mask, and expanded to
# (batch, 1, 1, len_k); the task's 2-D mask is (len_q, len_k), one row per query.
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        if mask.dim() == 2:
            mask = mask[:, None, None, :]
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ value
