# Question 6 (3 points): find the bug in positional_table
# WRONG: the colleague's code unchanged: each dimension j uses the exponent j / d_model, so the cosine of a pair
# turns at a different frequency than its sine.
def positional_table(max_len, d_model):
    "The paper's sinusoidal encoding, (max_len, d_model)."
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    j = torch.arange(d_model, dtype=torch.float32)
    angle = pos / 10000 ** (j / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angle[:, 0::2])
    pe[:, 1::2] = torch.cos(angle[:, 1::2])
    return pe
