# Question 6 (3 points): find the bug in positional_table
# RIGHT: one frequency per pair (outer product), sine and cosine stacked and interleaved with reshape.
def positional_table(max_len, d_model):
    "The paper's sinusoidal encoding, (max_len, d_model)."
    omega = torch.pow(10000.0, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)   # (d_model/2,)
    angle = torch.outer(torch.arange(max_len, dtype=torch.float64), omega)                    # (max_len, d_model/2)
    return torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(max_len, d_model).float()
