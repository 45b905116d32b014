# Question 1 (3 points): rope
# RIGHT: each pair as a complex number, multiplied by e^(i theta)
def rope(x, pos, base=10000.0):
    "Rotate the feature pairs (2i, 2i+1) of x (..., len, d) by pos * base^(-2i/d)."
    d = x.size(-1)
    theta = pos.double()[:, None] * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)   # (len, d/2)
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    rotated = torch.view_as_real(pairs * torch.polar(torch.ones_like(theta), theta))
    return rotated.flatten(-2).to(x.dtype)
