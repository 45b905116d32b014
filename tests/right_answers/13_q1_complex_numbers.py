# Question 1 (3 points): RoPE's score from the offset
# RIGHT: each pair as a complex number: the score is Re sum q_c conj(k_c) e^(-i offset omega)
def rope_score(q, k, offset, base=10000.0):
    "rope(q, m) . rope(k, m + offset) for 1-D q and k of d features: a function of the offset alone."
    d = q.size(-1)
    omega = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    q_c = torch.view_as_complex(q.double().reshape(d // 2, 2).contiguous())
    k_c = torch.view_as_complex(k.double().reshape(d // 2, 2).contiguous())
    return (q_c * k_c.conj() * torch.polar(torch.ones_like(omega), -offset * omega)).sum().real
