# Question 1 (2 points): causal_mask for queries after a cache
# RIGHT: the bottom rows of the square mask, built as "not the strict future" with triu.
def causal_mask(len_q, len_k=None):
    "Boolean mask (1, 1, len_q, len_k): the queries are the last len_q of len_k positions (True = attend)."
    len_k = len_k or len_q
    future = torch.triu(torch.ones(len_k, len_k, dtype=torch.bool), diagonal=1)
    return ~future[len_k - len_q:].unsqueeze(0).unsqueeze(0)
