# Question 1 (2 points): shift_right
# RIGHT: F.pad adds the bos column on the left of the labels without their last token (integer dtype kept).
def shift_right(labels, bos_id):
    "Decoder input for teacher forcing: [bos, y_1, ..., y_{n-1}]."
    return F.pad(labels[:, :-1], (1, 0), value=bos_id)
