# Question 1 (3 points): RoPE's score from the offset
# WRONG: rotates with a copy of rope that works in float32 whatever q is: the score keeps float32's 7 digits,
# not the 1e-9 the question asks for
def rope(x, pos, base=10000.0):
    d = x.size(-1)
    omega = base ** (-torch.arange(0, d, 2) / d)
    angle = pos.float()[:, None] * omega
    cos, sin = angle.cos(), angle.sin()
    even, odd = x[..., 0::2].float(), x[..., 1::2].float()
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)

def rope_score(q, k, offset, base=10000.0):
    "rope(q, m) . rope(k, m + offset) for 1-D q and k of d features: a function of the offset alone."
    return (rope(q[None], torch.tensor([0]), base) @ rope(k[None], torch.tensor([offset]), base).T).item()
