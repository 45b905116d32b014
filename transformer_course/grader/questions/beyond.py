"""Exercise 13: beyond the paper. Rotary position embedding and its relative-position property, grouped-query
attention, and the width that gives SwiGLU the paper's parameter count.

The package keeps the paper's model, so the references here are chapter 13's own short functions."""
import torch
from torch import nn

from transformer.attention import causal_mask, padding_mask, scaled_dot_product_attention
from ..checks import Miss, check_choices, check_number, need, question, rand, randint, same

NOTEBOOK = "13_beyond"
QUESTIONS = []


def rope(x, pos, base=10000.0):
    "Chapter 13's RoPE: rotate the feature pairs (2i, 2i+1) of x (..., len, d) by pos * base^(-2i/d)."
    d = x.size(-1)
    omega = base ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)           # (d/2,)
    angle = pos.to(x.dtype)[:, None] * omega                              # (len, d/2)
    cos, sin = angle.cos(), angle.sin()
    even, odd = x[..., 0::2], x[..., 1::2]                                # (..., len, d/2)
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


# ---------------------------------------------------------------- 1: RoPE
@question(QUESTIONS, 1, 3, "rope", forbid=["transformer_course.grader.questions.beyond.rope"])
def q1(ns):
    f = need(ns, "rope", "function")
    cases = [(rand(5, 8, seed=1), torch.arange(5), {}, "x (5, 8), positions 0..4"),
             (rand(2, 3, 4, 16, seed=2), torch.arange(10, 14), {},
              "x (2, 3, 4, 16): batch and heads, positions 10..13"),
             (rand(1, 6, 4, seed=3), torch.tensor([0, 7, 7, 100, 2, 5000]), {},
              "x (1, 6, 4), positions in any order, repeated, far"),
             (rand(3, 2, seed=4), torch.tensor([1, 2, 3]), {}, "d = 2: one pair"),
             (rand(4, 8, seed=5), torch.arange(4), {"base": 100.0}, "base=100"),
             (rand(2, 5, 8, seed=6, dtype=torch.float64), torch.arange(5), {},
              "float64 input: the output stays float64")]
    for x, pos, kw, case in cases:
        same(f(x.clone(), pos.clone(), **kw), rope(x, pos, **kw), "rope(x, pos)", case, atol=1e-4, rtol=1e-4)
    x = rand(2, 4, 8, seed=7).requires_grad_()
    out = f(x, torch.arange(4))
    if not isinstance(out, torch.Tensor) or not out.requires_grad:
        raise Miss("no gradient flows through rope",
                   "Use differentiable torch operations (no .detach(), numpy, .item()).")


# ---------------------------------------------------------------- 2: the relative-position property
def rope_facts():
    "The letters of question 2's true statements, decided by running chapter 13's rope in float64."
    q, k, v = (rand(1, 16, seed=s, dtype=torch.float64) for s in (21, 22, 23))
    score = lambda m, n: (rope(q, torch.tensor([m])) @ rope(k, torch.tensor([n])).T).item()
    added = lambda m, n: ((q + pe(m)) @ (k + pe(n)).T).item()
    close = lambda a, b: abs(a - b) < 1e-9 * max(1.0, abs(a))
    holds = {
        "a": close(score(0, 3), score(1000, 1003)) and close(score(5, 2), score(105, 102)),
        "b": close(score(2, 5), score(5, 2)),
        "c": close(rope(q, torch.tensor([37])).norm().item(), q.norm().item()),
        "d": close(score(0, 0), (q @ k.T).item()),
        "e": close(added(0, 3), added(1000, 1003)),
        "f": close((rope(q, torch.tensor([9])) @ rope(v, torch.tensor([9])).T).item(), (q @ v.T).item()),
    }
    return "".join(letter for letter, true in holds.items() if true)


def pe(pos, d=16):
    "Chapter 3's sinusoidal vector of one position, (1, d), float64."
    from transformer.embeddings import sinusoidal_encoding
    return sinusoidal_encoding(pos + 1, d)[pos:pos + 1].double()


@question(QUESTIONS, 2, 2, "RoPE's relative-position property")
def q2(ns):
    check_choices(ns, "answer_q2", correct=rope_facts(), options="abcdef")


# ---------------------------------------------------------------- 3: grouped-query attention
def grouped_query_attention(q, k, v, mask=None):
    "Chapter 13's: q (batch, h, len_q, d_k); k, v (batch, g, len_k, d_k) with g dividing h."
    repeat = q.size(1) // k.size(1)                                       # query heads per key/value head
    k, v = k.repeat_interleave(repeat, dim=1), v.repeat_interleave(repeat, dim=1)
    return scaled_dot_product_attention(q, k, v, mask)                    # (batch, h, len_q, d_k)


@question(QUESTIONS, 3, 2, "grouped_query_attention",
          forbid=["transformer_course.grader.questions.beyond.grouped_query_attention"])
def q3(ns):
    f = need(ns, "grouped_query_attention", "function")
    ids = randint(1, 9, (2, 6), seed=9)
    ids[1, 4:] = 0
    cases = [(8, 2, None, "h=8 query heads, g=2 key/value heads, no mask"),
             (8, 8, None, "g = h: ordinary multi-head attention"),
             (6, 1, None, "g = 1: multi-query attention"),
             (4, 2, padding_mask(ids, 0), "h=4, g=2, padding mask (2, 1, 1, 6)"),
             (4, 2, "causal", "h=4, g=2, self-attention length 6 with the causal mask")]
    for h, g, mask, case in cases:
        q = rand(2, h, 6 if mask == "causal" else 5, 8, seed=h)
        k, v = rand(2, g, 6, 8, seed=10 + g), rand(2, g, 6, 8, seed=20 + g)   # key != value
        m = causal_mask(6) if mask == "causal" else mask
        same(f(q, k, v, m), grouped_query_attention(q, k, v, m), "the output", case)


# ---------------------------------------------------------------- 4: SwiGLU's width
def swiglu_parameters(d_model, d_ff):
    "Chapter 13's SwiGLU: three matrices W, V (d_model -> d_ff) and W_2 (d_ff -> d_model), no biases."
    return sum(p.numel() for p in (nn.Linear(d_model, d_ff, bias=False, device="meta").weight,
                                   nn.Linear(d_model, d_ff, bias=False, device="meta").weight,
                                   nn.Linear(d_ff, d_model, bias=False, device="meta").weight))


def matching_width(d_model=512, d_ff=2048):
    "The largest SwiGLU width whose parameters do not exceed the paper's FFN (two Linear layers with biases)."
    ffn = sum(p.numel() for m in (nn.Linear(d_model, d_ff, device="meta"), nn.Linear(d_ff, d_model, device="meta"))
              for p in m.parameters())
    width = ffn // (3 * d_model)
    while swiglu_parameters(d_model, width + 1) <= ffn:
        width += 1
    return width


@question(QUESTIONS, 4, 1, "SwiGLU's width for the paper's parameter count")
def q4(ns):
    check_number(ns, "answer_q4", matching_width(), rel=0)


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: ('Compute omega = base ** (-arange(0, d, 2) / d) and the angles pos[:, None] * omega; rotate the even '
        'and odd features as (even cos - odd sin, even sin + odd cos), then interleave them again with '
        "torch.stack(..., dim=-1).flatten(-2). Build everything in x's dtype."),
    2: ('Try each statement with your rope on random float64 vectors: compare scores rope(q, m) . rope(k, n) '
        'for several m and n, and norms before and after.'),
    3: ('Repeat each key/value head for the h // g query heads that share it (repeat_interleave along the '
        'head dimension), then call scaled_dot_product_attention.'),
    4: ('Count the FFN with biases: 2 * d_model * d_ff + d_ff + d_model. SwiGLU has three bias-free matrices '
        "of d_model * d_ff' each: find the largest d_ff' that fits."),
}
