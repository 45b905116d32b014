# Question 1 (2 points): shift_right
# RIGHT: roll the labels one step to the right, then overwrite the wrapped-around first column with bos.
def shift_right(labels, bos_id):
    "Decoder input for teacher forcing: [bos, y_1, ..., y_{n-1}]."
    rolled = labels.roll(1, dims=1)
    first = torch.arange(labels.size(1)) == 0
    return torch.where(first, bos_id, rolled)
