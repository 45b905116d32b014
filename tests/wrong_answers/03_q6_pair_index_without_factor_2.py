# Question 6 (3 points): find the bug in positional_table
# WRONG: "fixed" with the pair index i = j // 2 but the exponent i / d_model instead of 2i / d_model:
# sine and cosine now share a frequency, but the frequencies only go down to 10000^(-1/2).
def positional_table(max_len, d_model):
    "The paper's sinusoidal encoding, (max_len, d_model)."
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    i = torch.arange(d_model, dtype=torch.float32) // 2
    angle = pos / 10000 ** (i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angle[:, 0::2])
    pe[:, 1::2] = torch.cos(angle[:, 1::2])
    return pe
