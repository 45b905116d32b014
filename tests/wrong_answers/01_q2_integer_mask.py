# Question 2 (1 point): padding_mask for queries and keys
# WRONG: an integer 0/1 mask (as Hugging Face's attention_mask) with the right entries: not torch.bool.
def padding_mask(ids, pad_id):
    "Boolean mask (batch, 1, len, len): True where query i and key j are both real tokens."
    real = (ids != pad_id).long()
    return (real[:, :, None] * real[:, None, :]).unsqueeze(1)
