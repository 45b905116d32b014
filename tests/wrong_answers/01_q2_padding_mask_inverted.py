# Question 2 (1 point): padding_mask for queries and keys
# WRONG: inverted, True where the query or the key is padding and False where both are real tokens.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, len, len): True where query i and key j are both real tokens."
    pad = ids == pad_id
    return (pad[:, :, None] | pad[:, None, :]).unsqueeze(1)
