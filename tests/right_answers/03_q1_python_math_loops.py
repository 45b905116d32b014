# Question 1 (2 points): sinusoidal_encoding
# RIGHT: explicit loops over positions and pairs with Python's math module, the frequency as a power.
def sinusoidal_encoding(max_len, d_model):
    "(max_len, d_model): sines in even dimensions, cosines in odd ones."
    rows = []
    for pos in range(max_len):
        row = []
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float32).reshape(max_len, d_model)
