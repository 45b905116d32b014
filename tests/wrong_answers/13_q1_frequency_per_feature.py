# Question 1 (3 points): rope
# WRONG: each feature gets the frequency of its own index (base^(-j/d)), so the two features of a pair turn at different speeds
def rope(x, pos, base=10000.0):
    "Rotate the feature pairs (2i, 2i+1) of x (..., len, d) by pos * base^(-2i/d)."
    d = x.size(-1)
    angle = pos.to(x.dtype)[:, None] * base ** (-torch.arange(d, dtype=x.dtype) / d)    # (len, d)
    even, odd = x[..., 0::2], x[..., 1::2]
    a_even, a_odd = angle[:, 0::2], angle[:, 1::2]
    return torch.stack((even * a_even.cos() - odd * a_odd.sin(), even * a_even.sin() + odd * a_odd.cos()),
                       dim=-1).flatten(-2)
