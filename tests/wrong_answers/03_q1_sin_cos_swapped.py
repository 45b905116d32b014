# Question 1 (2 points): sinusoidal_encoding
# WRONG: cosines in the even dimensions, sines in the odd ones.
def sinusoidal_encoding(max_len, d_model):
    "(max_len, d_model): sines in even dimensions, cosines in odd ones."
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.cos(pos * inv_freq)
    pe[:, 1::2] = torch.sin(pos * inv_freq)
    return pe
