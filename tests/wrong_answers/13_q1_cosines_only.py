# Question 1 (3 points): RoPE's score from the offset
# WRONG: keeps the cosine term of each pair and forgets the sine term, as if both vectors turned the same way
def rope_score(q, k, offset, base=10000.0):
    "rope(q, m) . rope(k, m + offset) for 1-D q and k of d features: a function of the offset alone."
    d = q.size(-1)
    angle = offset * base ** (-torch.arange(0, d, 2, dtype=q.dtype) / d)
    return ((q[0::2] * k[0::2] + q[1::2] * k[1::2]) * angle.cos()).sum().item()
