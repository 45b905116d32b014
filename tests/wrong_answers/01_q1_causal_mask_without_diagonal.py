# Question 1 (2 points): causal_mask for queries after a cache
# WRONG: the diagonal is excluded (tril(offset - 1)), so a query may not attend to its own position.
def causal_mask(len_q, len_k=None):
    "Boolean mask (1, 1, len_q, len_k): the queries are the last len_q of len_k positions (True = attend)."
    len_k = len_q if len_k is None else len_k
    return torch.ones(len_q, len_k, dtype=torch.bool).tril(len_k - len_q - 1).view(1, 1, len_q, len_k)
