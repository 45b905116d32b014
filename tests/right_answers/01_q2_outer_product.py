# Question 2 (1 point): padding_mask for queries and keys
# RIGHT: an outer product of 0/1 vectors with einsum, turned into booleans.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, len, len): True where query i and key j are both real tokens."
    real = (ids != pad_id).float()
    return torch.einsum("bi,bj->bij", real, real)[:, None] > 0
