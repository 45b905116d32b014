# Question 2 (1 point): padding_mask
# WRONG: inverted, True at padding and False at real tokens.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, 1, len): True where `ids` is a real token, False at padding."
    return (ids == pad_id)[:, None, None, :]
