# Question 1 (3 points): RoPE's score from the offset
# WRONG: puts the query at the later position, rope(q, offset) . rope(k, 0): the angle's sign flips, and with it
# the sine term
def rope(x, pos, base=10000.0):
    d = x.size(-1)
    omega = base ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    angle = pos.to(x.dtype)[:, None] * omega
    cos, sin = angle.cos(), angle.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)

def rope_score(q, k, offset, base=10000.0):
    "rope(q, m) . rope(k, m + offset) for 1-D q and k of d features: a function of the offset alone."
    return (rope(q[None], torch.tensor([offset]), base) @ rope(k[None], torch.tensor([0]), base).T).item()
