# Question 1 (2 points): causal_mask for queries after a cache
# WRONG: the chapter's tril() on a (len_q, len_k) matrix: the new queries are treated as positions 0 .. len_q - 1,
# so one new token after a cache sees only key 0. Right for square masks only.
def causal_mask(len_q, len_k=None):
    "Boolean mask (1, 1, len_q, len_k): the queries are the last len_q of len_k positions (True = attend)."
    len_k = len_q if len_k is None else len_k
    return torch.ones(len_q, len_k, dtype=torch.bool).tril().view(1, 1, len_q, len_k)
