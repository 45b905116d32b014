# Question 2 (1 point): padding_mask for queries and keys
# RIGHT: torch.logical_and of a query column and a key row, then a head dimension.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, len, len): True where query i and key j are both real tokens."
    real = ids.ne(pad_id)
    return torch.logical_and(real.unsqueeze(-1), real.unsqueeze(-2)).unsqueeze(1)
