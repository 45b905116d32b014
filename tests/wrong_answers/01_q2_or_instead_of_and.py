# Question 2 (1 point): padding_mask for queries and keys
# WRONG: `or` instead of `and`: a real query may attend to padded keys, and padded queries to real keys.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, len, len): True where query i and key j are both real tokens."
    real = ids != pad_id
    return (real[:, :, None] | real[:, None, :]).unsqueeze(1)
