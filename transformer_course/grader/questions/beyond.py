"""Exercise 13: beyond the paper. What rotary position embedding does to a score (a function of the offset alone)
and which properties follow, the key/value cache that grouped-query attention saves, and the width that gives
SwiGLU the paper's parameter count.

The package keeps the paper's model, so the references here are chapter 13's own short functions."""

import torch
from torch import nn

from ..checks import Miss, check_choices, check_number, question
from ..learner import need
from ..tensors import rand

NOTEBOOK = "13_beyond"
QUESTIONS = []


def rope(x, pos, base=10000.0):
    "Chapter 13's RoPE: rotate the feature pairs (2i, 2i+1) of x (..., len, d) by pos * base^(-2i/d)."
    d = x.size(-1)
    omega = base ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)  # (d/2,)
    angle = pos.to(x.dtype)[:, None] * omega  # (len, d/2)
    cos, sin = angle.cos(), angle.sin()
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., len, d/2)
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


# ---------------------------------------------------------------- 1: RoPE's score from the offset
def rope_score(q, k, offset, base=10000.0):
    "The score rope(q, m) . rope(k, m + offset) of the 1-D vectors q and k, with m = 0."
    return (rope(q[None], torch.tensor([0]), base) @ rope(k[None], torch.tensor([offset]), base).T).item()


@question(
    QUESTIONS,
    1,
    3,
    "RoPE's score from the offset",
    forbid=[
        "transformer_course.grader.questions.beyond.rope",
        "transformer_course.grader.questions.beyond.rope_score",
    ],
)
def q1(ns):
    f = need(ns, "rope_score", "function")
    cases = [  # (d, offset, base, seed, what the case is about)
        (16, 0, 10000.0, 31, "offset 0: the plain dot product"),
        (16, 3, 10000.0, 32, "d = 16, the key 3 positions after the query"),
        (16, -3, 10000.0, 32, "the same vectors, the key 3 positions before the query"),
        (8, 1, 10000.0, 33, "d = 8, offset 1"),
        (2, 2, 10000.0, 34, "d = 2: one pair, rotated by the offset in radians"),
        (32, 5000, 10000.0, 35, "d = 32, offset 5000"),
        (12, -7, 100.0, 36, "d = 12, offset -7, base=100"),
    ]
    for d, offset, base, seed, case in cases:
        q, k = rand(d, seed=seed, dtype=torch.float64), rand(d, seed=seed + 100, dtype=torch.float64)
        want = rope_score(q, k, offset, base)
        kw = {} if base == 10000.0 else {"base": base}
        got = f(q.clone(), k.clone(), offset, **kw)
        try:
            got = float(got)
        except (TypeError, ValueError, RuntimeError):
            raise Miss(f"`rope_score` does not return a number ({case})", f"Got {type(got).__name__}.") from None
        if not abs(got - want) <= 1e-9 * max(1.0, abs(want)):
            direction = "too large" if got > want else "too small"
            raise Miss(
                f"wrong score ({case})",
                f"q and k of {d} float64 features, offset={offset}"
                + (f", base={base}" if kw else "")
                + f": {got:.10g} is {direction} (a difference up to 1e-9 is accepted).",
            )


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

    return sinusoidal_encoding(pos + 1, d)[pos : pos + 1].double()


@question(QUESTIONS, 2, 2, "RoPE's relative-position property")
def q2(ns):
    check_choices(ns, "answer_q2", correct=rope_facts(), options="abcdef")


# ---------------------------------------------------------------- 3: what grouped-query attention saves
def kv_cache_bytes(tokens, kv_heads, layers, d_k, bytes_per_number):
    "Chapter 13's count: a key and a value of d_k numbers per key/value head, per layer, per token."
    return 2 * layers * kv_heads * d_k * bytes_per_number * tokens


GQA_MODEL = {"layers": 80, "h": 64, "g": 8, "d_k": 128, "bytes_per_number": 2, "batch": 4, "length": 4096}


def kv_cache_saved(layers, h, g, d_k, bytes_per_number, batch, length):
    "The bytes of key/value cache that g key/value heads save over h (multi-head attention)."
    tokens = batch * length
    return kv_cache_bytes(tokens, h, layers, d_k, bytes_per_number) - kv_cache_bytes(
        tokens, g, layers, d_k, bytes_per_number
    )


@question(QUESTIONS, 3, 2, "the cache grouped-query attention saves")
def q3(ns):
    check_number(ns, "answer_q3", kv_cache_saved(**GQA_MODEL), rel=0, integer=True)  # bytes: a count


# ---------------------------------------------------------------- 4: SwiGLU's width
def swiglu_parameters(d_model, d_ff):
    "Chapter 13's SwiGLU: three matrices W, V (d_model -> d_ff) and W_2 (d_ff -> d_model), no biases."
    return sum(
        p.numel()
        for p in (
            nn.Linear(d_model, d_ff, bias=False, device="meta").weight,
            nn.Linear(d_model, d_ff, bias=False, device="meta").weight,
            nn.Linear(d_ff, d_model, bias=False, device="meta").weight,
        )
    )


def matching_width(d_model=512, d_ff=2048):
    "The largest SwiGLU width whose parameters do not exceed the paper's FFN (two Linear layers with biases)."
    ffn = sum(
        p.numel()
        for m in (nn.Linear(d_model, d_ff, device="meta"), nn.Linear(d_ff, d_model, device="meta"))
        for p in m.parameters()
    )
    width = ffn // (3 * d_model)
    while swiglu_parameters(d_model, width + 1) <= ffn:
        width += 1
    return width


@question(QUESTIONS, 4, 1, "SwiGLU's width for the paper's parameter count")
def q4(ns):
    check_number(ns, "answer_q4", matching_width(), rel=0, integer=True)  # a width: what nn.Linear takes


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Write out the dot product of two rotated pairs, (q_2i, q_2i+1) turned by m * omega_i and (k_2i, k_2i+1) "
        "turned by n * omega_i: the angle sum formulas leave cos and sin of (n - m) * omega_i only. Or use the "
        "property itself: the score is the same wherever the pair sits. Compute in float64."
    ),
    2: (
        "Try each statement with chapter 13's rope on random float64 vectors: compare scores rope(q, m) . "
        "rope(k, n) for several m and n, and norms before and after."
    ),
    3: (
        "Per token, each layer caches a key and a value of d_k numbers for every key/value head: count the bytes "
        "with h heads and with g heads, for every token of the batch, and subtract."
    ),
    4: (
        "Count the FFN with biases: 2 * d_model * d_ff + d_ff + d_model. SwiGLU has three bias-free matrices "
        "of d_model * d_ff' each: find the largest d_ff' that fits."
    ),
}
