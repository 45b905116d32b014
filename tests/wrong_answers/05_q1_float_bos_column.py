# Question 1 (2 points): shift_right
# WRONG: the <bos> column is a float tensor, so torch.cat promotes the ids to float32 (nn.Embedding refuses them).
def shift_right(labels, bos_id):
    "Decoder input for teacher forcing: [bos, y_1, ..., y_{n-1}]."
    bos = torch.full((labels.size(0), 1), bos_id, dtype=torch.float)
    return torch.cat([bos, labels[:, :-1]], dim=1)
