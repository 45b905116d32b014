# Question 1 (2 points): shift_right
# RIGHT: an explicit torch.long bos column (int32 labels come back as torch.long, ids all the same).
def shift_right(labels, bos_id):
    "Decoder input for teacher forcing: [bos, y_1, ..., y_{n-1}]."
    bos = torch.full((labels.size(0), 1), bos_id, dtype=torch.long)
    return torch.cat([bos, labels[:, :-1]], dim=1)
