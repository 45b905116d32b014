# Question 1 (2 points): shift_right
# WRONG: shifted the wrong way (drops the first label and appends bos at the end).
def shift_right(labels, bos_id):
    "Decoder input for teacher forcing: [bos, y_1, ..., y_{n-1}]."
    bos = torch.full_like(labels[:, :1], bos_id)
    return torch.cat([labels[:, 1:], bos], dim=1)
