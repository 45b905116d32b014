# Question 1 (2 points): causal_mask for queries after a cache
# WRONG: the diagonal shifted one too far (tril(offset + 1)): each query also sees the next position.
def causal_mask(len_q, len_k=None):
    "Boolean mask (1, 1, len_q, len_k): the queries are the last len_q of len_k positions (True = attend)."
    len_k = len_q if len_k is None else len_k
    return torch.ones(len_q, len_k, dtype=torch.bool).tril(len_k - len_q + 1).view(1, 1, len_q, len_k)
