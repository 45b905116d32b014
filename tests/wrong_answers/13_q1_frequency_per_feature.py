# Question 1 (3 points): RoPE's score from the offset
# WRONG: each feature gets the frequency of its own index (base^(-j/d)), so the two features of a pair turn at
# different speeds
def rope_score(q, k, offset, base=10000.0):
    "rope(q, m) . rope(k, m + offset) for 1-D q and k of d features: a function of the offset alone."
    d = q.size(-1)
    angle = offset * base ** (-torch.arange(d, dtype=q.dtype) / d)          # (d,)
    q_even, q_odd, k_even, k_odd = q[0::2], q[1::2], k[0::2], k[1::2]
    a_even, a_odd = angle[0::2], angle[1::2]
    return ((q_even * k_even) * a_even.cos() + (q_odd * k_odd) * a_odd.cos()
            + (q_odd * k_even - q_even * k_odd) * a_even.sin()).sum().item()
