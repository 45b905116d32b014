# Question 1 (3 points): RoPE's score from the offset
# WRONG: pairs feature i with feature i + d/2 (the "rotate half" layout of some libraries), not 2i with 2i + 1
def rope_score(q, k, offset, base=10000.0):
    "rope(q, m) . rope(k, m + offset) for 1-D q and k of d features: a function of the offset alone."
    d = q.size(-1)
    angle = offset * base ** (-torch.arange(0, d, 2, dtype=q.dtype) / d)
    q1, q2, k1, k2 = q[: d // 2], q[d // 2:], k[: d // 2], k[d // 2:]
    return ((q1 * k1 + q2 * k2) * angle.cos() + (q2 * k1 - q1 * k2) * angle.sin()).sum().item()
