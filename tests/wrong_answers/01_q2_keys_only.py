# Question 2 (1 point): padding_mask for queries and keys
# WRONG: the chapter's key mask (batch, 1, 1, len): padded queries are not hidden.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, len, len): True where query i and key j are both real tokens."
    return (ids != pad_id)[:, None, None, :]
