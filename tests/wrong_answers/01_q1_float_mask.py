# Question 1 (2 points): causal_mask for queries after a cache
# WRONG: a float mask of ones and zeros (the positions are right): ~mask and masked_fill need torch.bool.
def causal_mask(len_q, len_k=None):
    "Boolean mask (1, 1, len_q, len_k): the queries are the last len_q of len_k positions (True = attend)."
    len_k = len_q if len_k is None else len_k
    return torch.tril(torch.ones(len_q, len_k), diagonal=len_k - len_q).view(1, 1, len_q, len_k)
