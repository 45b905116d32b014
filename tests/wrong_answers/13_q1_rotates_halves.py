# Question 1 (3 points): rope
# WRONG: pairs feature i with feature i + d/2 (the "rotate half" layout of some libraries), not 2i with 2i + 1
def rope(x, pos, base=10000.0):
    "Rotate the feature pairs (2i, 2i+1) of x (..., len, d) by pos * base^(-2i/d)."
    d = x.size(-1)
    omega = base ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    angle = pos.to(x.dtype)[:, None] * omega
    cos, sin = angle.cos(), angle.sin()
    first, second = x[..., : d // 2], x[..., d // 2:]
    return torch.cat((first * cos - second * sin, first * sin + second * cos), dim=-1)
