# Question 1 (3 points): rope
# WRONG: the angles are computed in float32 whatever x is, so a float64 input comes back float32
def rope(x, pos, base=10000.0):
    "Rotate the feature pairs (2i, 2i+1) of x (..., len, d) by pos * base^(-2i/d)."
    d = x.size(-1)
    omega = base ** (-torch.arange(0, d, 2) / d)
    angle = pos.float()[:, None] * omega
    cos, sin = angle.cos(), angle.sin()
    even, odd = x[..., 0::2].float(), x[..., 1::2].float()
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
