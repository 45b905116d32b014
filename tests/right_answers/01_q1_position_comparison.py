# Question 1 (2 points): causal_mask for queries after a cache
# RIGHT: compare absolute positions: query i sits at len_k - len_q + i, key j at j.
def causal_mask(len_q, len_k=None):
    "Boolean mask (1, 1, len_q, len_k): the queries are the last len_q of len_k positions (True = attend)."
    if len_k is None:
        len_k = len_q
    query_pos = torch.arange(len_k - len_q, len_k)
    key_pos = torch.arange(len_k)
    return (key_pos[None, :] <= query_pos[:, None])[None, None]
