"""Exercise 1: scaled dot-product attention."""

import math

import torch

from transformer.attention import attention_weights, causal_mask, padding_mask, scaled_dot_product_attention

from ..checks import Miss, check_choices, check_number, question
from ..learner import need
from ..tensors import rand, randint, same

NOTEBOOK = "01_attention"
QUESTIONS = []


@question(QUESTIONS, 1, 2, "causal_mask", forbid=["transformer.attention.causal_mask"])
def q1(ns):
    f = need(ns, "causal_mask", "function")
    for size in (1, 2, 5):  # the square mask of the chapter
        same(f(size), causal_mask(size), f"causal_mask({size})")
    # queries are the LAST len_q of len_k positions: query i sits at position len_k - len_q + i,
    # so it may see keys 0 .. len_k - len_q + i (the package's square mask, bottom rows)
    for len_q, len_k in ((1, 5), (3, 7), (4, 4), (2, 3)):
        same(
            f(len_q, len_k),
            causal_mask(len_k)[..., len_k - len_q :, :],
            f"causal_mask({len_q}, {len_k})",
            f"{len_q} new queries after {len_k - len_q} cached positions",
        )
    same(f(2, len_k=6), causal_mask(6)[..., 4:, :], "causal_mask(2, len_k=6)", "len_k given by keyword")


def square_padding_mask(ids, pad_id):
    "(batch, 1, len, len): the package's key mask, and the same for the queries."
    keys = padding_mask(ids, pad_id)  # (batch, 1, 1, len)
    return keys & keys.transpose(-2, -1)


@question(QUESTIONS, 2, 1, "padding_mask", forbid=["transformer.attention.padding_mask"])
def q2(ns):
    f = need(ns, "padding_mask", "function")
    ids = torch.tensor([[5, 7, 2, 0, 0], [3, 0, 4, 1, 1]])
    same(
        f(ids, 0),
        square_padding_mask(ids, 0),
        "padding_mask(ids, pad_id=0)",
        "ids = [[5, 7, 2, 0, 0], [3, 0, 4, 1, 1]]",
    )
    same(
        f(ids, 1),
        square_padding_mask(ids, 1),
        "padding_mask(ids, pad_id=1)",
        "ids = [[5, 7, 2, 0, 0], [3, 0, 4, 1, 1]]",
    )
    one = torch.tensor([[4, 0, 0]])
    same(
        f(one, 0),
        square_padding_mask(one, 0),
        "padding_mask(ids, pad_id=0)",
        "ids = [[4, 0, 0]], batch of one",
    )


@question(
    QUESTIONS,
    3,
    3,
    "scaled_dot_product_attention",
    forbid=[
        "transformer.attention.scaled_dot_product_attention",
        "transformer.attention.attention_weights",
        "torch.nn.functional.scaled_dot_product_attention",
    ],
)
def q3(ns):
    f = need(ns, "scaled_dot_product_attention", "function")
    # query, key and value all different, len_q != len_k and d_k != d_v: using the key as the value,
    # the query as the key, or d_v for the scale cannot pass
    q, k, v = rand(2, 3, 4, 16, seed=1), rand(2, 3, 6, 16, seed=2), rand(2, 3, 6, 5, seed=3)
    same(f(q, k, v), scaled_dot_product_attention(q, k, v), "the output", "no mask, len_q=4, len_k=6, d_k=16")
    pad = randint(1, 9, (2, 6), seed=4)
    pad[0, 4:] = 0
    mask = padding_mask(pad, 0)  # (2, 1, 1, 6)
    same(
        f(q, k, v, mask),
        scaled_dot_product_attention(q, k, v, mask),
        "the output",
        "padding mask (2, 1, 1, 6)",
    )
    x = rand(1, 2, 5, 8, seed=5)
    same(
        f(x, x, x, causal_mask(5)),
        scaled_dot_product_attention(x, x, x, causal_mask(5)),
        "the output",
        "causal mask (1, 1, 5, 5), self-attention",
    )
    full = torch.ones(1, 1, 3, 6, dtype=torch.bool)
    full[..., 1, :] = False  # query 1 may attend to nothing
    same(
        f(q[:1, :1, :3], k[:1, :1], v[:1, :1], full),
        scaled_dot_product_attention(q[:1, :1, :3], k[:1, :1], v[:1, :1], full),
        "the output",
        "a fully masked query row must give zeros, not NaN",
    )
    # other ranks, `...` being any number of leading dimensions (each call on one line, so that an error's
    # hint, which quotes the grader's line, names the case)
    x3 = rand(2, 4, 16, seed=7), rand(2, 6, 16, seed=8), rand(2, 6, 5, seed=9)  # (batch, len, d)
    m3 = mask[:, 0]  # (2, 1, 6)
    same(
        f(*x3),
        scaled_dot_product_attention(*x3),
        "the output",
        "3-D inputs (batch, len, d), no head dimension, no mask",
    )
    same(f(*x3, m3), scaled_dot_product_attention(*x3, m3), "the output", "3-D inputs, padding mask (2, 1, 6)")
    x5 = rand(2, 2, 3, 4, 8, seed=10), rand(2, 2, 3, 6, 8, seed=11), rand(2, 2, 3, 6, 3, seed=12)
    m5 = mask[:, None]  # (2, 1, 1, 1, 6)
    same(
        f(*x5, m5),
        scaled_dot_product_attention(*x5, m5),
        "the output",
        "5-D inputs (2, 2, 3, len, d), mask (2, 1, 1, 1, 6)",
    )
    # a mask without batch dimensions, (len_q, len_k), with a fully masked row
    m2 = torch.tensor(
        [
            [True, False, True, True, False, False],
            [False] * 6,
            [True] * 6,
            [False, False, False, False, False, True],
        ]
    )
    same(
        f(q, k, v, m2),
        scaled_dot_product_attention(q, k, v, m2),
        "the output",
        "mask (len_q, len_k) = (4, 6), row 1 empty",
    )
    x2 = tuple(t[0] for t in x3)  # (len, d)
    same(f(*x2, m2), scaled_dot_product_attention(*x2, m2), "the output", "2-D inputs (len, d), mask (4, 6)")
    # gradients flow to q, k and v as in the reference
    grads = []
    for fn in (f, scaled_dot_product_attention):
        qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
        (fn(qq, kk, vv, mask) * rand(2, 3, 4, 5, seed=6)).sum().backward()
        grads.append([t.grad for t in (qq, kk, vv)])
    for name, got, want in zip("qkv", *grads):
        if got is None:
            raise Miss(
                f"no gradient flows to {name}",
                "Use differentiable torch operations (no .detach(), .item() or numpy).",
            )
        same(got, want, f"the gradient with respect to {name}", "padding mask")


def entropy_experiment(scale):
    """Mean entropy (nats) of the attention weights of the cell's experiment: the same seed and draws as the
    cell. `scale` multiplies the queries: 1 is the package's attention, sqrt(d_k) cancels its 1/sqrt(d_k)."""
    d_k = 512  # the cell's inputs, drawn the same way
    torch.manual_seed(0)
    q = torch.randn(2000, 1, d_k)  # as in the cell: 2000 draws of one query
    k = torch.randn(2000, 10, d_k)  # and ten keys
    w = attention_weights(q * scale(d_k), k).double()  # (2000, 1, 10)
    return torch.special.entr(w).sum(dim=-1).mean().item()  # entr(0) = 0: 0 log 0 counts as 0


# Tolerance of the two entropy questions: the learner recomputes the same deterministic quantity on the
# same tensors; only rounding differs (float32 or float64, order of the sums), about 1e-6 relative. A
# relative error of 1e-3 accepts four significant digits; natural log versus log2 (a factor 1.44), a fresh
# sample (a few percent) or 0 log 0 taken as NaN all fail.
def not_nan(ns, name):
    "A NaN entropy comes from 0 * log(0): say so (check_number would only say it is NaN)."
    value = ns.get(name)
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        raise Miss(
            f"`{name}` is NaN",
            "Some weights are exactly 0 in float32, and 0 * log(0) = 0 * -inf = NaN; "
            "the entropy counts 0 ln 0 as 0 (torch.special.entr or torch.xlogy do).",
        )


@question(QUESTIONS, 4, 2, "entropy of the weights without scaling")
def q4(ns):
    not_nan(ns, "answer_q4")
    check_number(ns, "answer_q4", entropy_experiment(lambda d_k: math.sqrt(d_k)), rel=1e-3, abs_tol=0)


@question(QUESTIONS, 5, 1, "entropy of the weights with scaling")
def q5(ns):
    not_nan(ns, "answer_q5")
    check_number(ns, "answer_q5", entropy_experiment(lambda d_k: 1.0), rel=1e-3, abs_tol=0)


NO_SOFTMAX = [
    "torch.softmax",
    "torch.Tensor.softmax",
    "torch.nn.functional.softmax",
    "torch.special.softmax",
    "torch.log_softmax",
    "torch.Tensor.log_softmax",
    "torch.nn.functional.log_softmax",
    "torch.special.log_softmax",
    "torch.nn.Softmax",
    "torch.nn.LogSoftmax",
    "transformer.attention.attention_weights",
    "transformer.attention.scaled_dot_product_attention",
    "torch.nn.functional.scaled_dot_product_attention",
]


@question(QUESTIONS, 6, 2, "find the bug in softmax_by_hand", forbid=NO_SOFTMAX)
def q6(ns):
    f = need(ns, "softmax_by_hand", "function")
    # rows on very different scales: the bug (one maximum for the whole tensor) turns the rows far below
    # the largest score into 0 / 0
    s = torch.tensor([[150.0, 148.0, 151.0, 140.0], [0.5, -1.0, 2.0, 0.0], [-80.0, -82.0, -79.5, -90.0]])
    same(f(s), s.softmax(dim=-1), "softmax_by_hand(scores)", "rows around 150, 0 and -80")
    big = torch.tensor([[1000.0, 999.0, 990.0], [3.0, 1.0, 2.0]])
    same(f(big), big.softmax(dim=-1), "softmax_by_hand(scores)", "a row around 1000 (exp overflows float32)")
    masked = torch.tensor([[2.0, float("-inf"), 1.0], [float("-inf"), 40.0, float("-inf")]])
    same(
        f(masked),
        masked.softmax(dim=-1),
        "softmax_by_hand(scores)",
        "masked scores (-inf), every row keeps one key",
    )
    heads = rand(2, 3, 4, 5, seed=1) * 3 + 100 * torch.arange(4.0).view(1, 1, 4, 1)  # (batch, h, len_q, len_k)
    same(
        f(heads),
        heads.softmax(dim=-1),
        "softmax_by_hand(scores)",
        "scores (2, 3, 4, 5), rows offset by 0, 100, 200, 300",
    )


def invariances():
    """The letters of question 7's true statements, decided by running the package's attention on random tensors."""
    att = scaled_dot_product_attention
    q, k, v = rand(5, 8, seed=21), rand(6, 8, seed=22), rand(6, 3, seed=23)
    c, c_v, perm = rand(8, seed=24), rand(3, seed=25), torch.tensor([3, 0, 5, 1, 4, 2])
    base = att(q, k, v)
    close = lambda a, b: torch.allclose(a, b, atol=1e-5, rtol=1e-4)
    holds = {
        "a": close(att(q, k, v + c_v), base + c_v),
        "b": close(att(q, torch.cat([k, k[:1]]), torch.cat([v, v[:1]])), base),
        "c": close(att(q, k + c, v), base),
        "d": close(att(q + c, k, v), base),
        "e": close(att(q, k[perm], v[perm]), base),
        "f": close(att(q, k[perm], v), base),
        "g": close(attention_weights(2 * q, k), attention_weights(q, k)),
    }
    return "".join(letter for letter, true in holds.items() if true)


@question(QUESTIONS, 7, 3, "what attention ignores")
def q7(ns):
    check_choices(ns, "answer_q7", correct=invariances(), options="abcdefg")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Start from the square mask torch.ones(len_k, len_k).tril(): the new queries are its last len_q rows. "
        "Or build it with tril's `diagonal` argument: by how much does the diagonal move when len_q < len_k?"
    ),
    2: (
        "Compute one boolean vector `real = ids != pad_id` of shape (batch, len), then combine a query view "
        "(batch, len, 1) with a key view (batch, 1, len) by broadcasting; add the head dimension last."
    ),
    3: (
        "Use query.size(-1) for d_k and key.transpose(-2, -1) so any number of leading dimensions works. Fill "
        "masked scores with -inf, softmax, then set the masked weights to 0: a row with every key masked "
        "would otherwise be NaN."
    ),
    4: (
        "Compute the weights exactly as the cell draws them, without dividing by sqrt(d_k). "
        "torch.special.entr(w) is -w ln w with entr(0) = 0; sum over the keys, then average over the 2000 "
        "queries."
    ),
    5: "The same measurement as question 4, with the scores divided by math.sqrt(d_k) before the softmax.",
    6: (
        "scores.max() is one number for the whole tensor. Try two rows whose scores lie about 200 apart: what "
        "does exp give the lower row? Then take the maximum per row (amax over the last dimension, "
        "keepdim=True)."
    ),
    7: (
        "Test each statement on random tensors with torch.allclose. For c and d, write out q.(k_j + c) and (q "
        "+ c).k_j: which one shifts a whole row of scores by the same amount?"
    ),
}
