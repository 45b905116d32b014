"""Exercise 2: multi-head attention."""

import torch
from torch import nn

from transformer.attention import causal_mask, padding_mask
from transformer.model import TransformerConfig
from transformer.multi_head import MultiHeadAttention

from ..checks import Miss, check_choice, check_choices, check_number, question
from ..learner import need
from ..tensors import copy_weights, rand, randint, same

NOTEBOOK = "02_multi_head"
QUESTIONS = []
NO_MHA = [
    "transformer.multi_head.MultiHeadAttention",
    "torch.nn.MultiheadAttention",
    "torch.nn.functional.multi_head_attention_forward",
]


def package_split(x, h):
    "The package's split_heads, (batch, len, d_model) only, applied to any leading dimensions."
    *lead, n, d_model = x.shape
    heads = MultiHeadAttention(d_model, h).split_heads(x.reshape(-1, n, d_model))  # (B, h, len, d_k)
    return heads.reshape(*lead, h, n, d_model // h)


@question(QUESTIONS, 1, 2, "split_heads", forbid=NO_MHA)
def q1(ns):
    f = need(ns, "split_heads", "function")
    x = rand(2, 5, 12, seed=1)
    for h in (3, 4, 1):
        same(f(x, h), package_split(x, h), f"split_heads(x, h={h})", "x of shape (2, 5, 12)")
    for shape, h in (((5, 12), 3), ((2, 3, 5, 12), 4), ((2, 2, 3, 4, 6), 2)):
        x = rand(*shape, seed=len(shape))
        same(f(x, h), package_split(x, h), f"split_heads(x, h={h})", f"x of shape {shape}")


@question(QUESTIONS, 2, 1, "find the bug in merge_heads", forbid=NO_MHA)
def q2(ns):
    f = need(ns, "merge_heads", "function")
    for h in (3, 4):
        x = rand(2, h, 5, 12 // h, seed=h)
        same(f(x), MultiHeadAttention(12, h).merge_heads(x), "merge_heads(x)", f"x of shape {tuple(x.shape)}")
    # a round trip: merging the heads that split_heads made must give the input back
    y = rand(3, 4, 8, seed=5)
    mha = MultiHeadAttention(8, 2)
    same(
        f(mha.split_heads(y)),
        y,
        "merge_heads(split_heads(y))",
        "y of shape (3, 4, 8), h=2: merging must undo the split",
    )


def loaded(cls, d_model, h):
    "The learner's module and the reference with the same random weights (non-zero biases, so forgetting one shows)."
    torch.manual_seed(d_model)
    ref = MultiHeadAttention(d_model, h).eval()
    for p in ref.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return copy_weights(cls(d_model, h), ref, f"MultiHeadAttention({d_model}, {h})").eval(), ref


@question(QUESTIONS, 3, 4, "MultiHeadAttention", forbid=NO_MHA)
def q3(ns):
    cls = need(ns, "MultiHeadAttention", "class")
    ids = randint(1, 9, (2, 6), seed=4)
    ids[1, 3:] = 0
    m = padding_mask(ids, 0)  # (2, 1, 1, 6)
    m2 = torch.tensor([[True, True, False, True, False, True]] * 3 + [[False] * 5 + [True]])  # (len_q, len_k)
    # one call per line, so that an error's hint, which quotes the grader's line, names the case
    for d_model, h in ((12, 3), (8, 4)):
        mine, ref = loaded(cls, d_model, h)
        x = rand(2, 5, d_model, seed=1)
        same(mine(x, x, x), ref(x, x, x), "the output", f"self-attention, d_model={d_model}, h={h}")
        same(
            mine(x, x, x, causal_mask(5)),
            ref(x, x, x, causal_mask(5)),
            "the output",
            f"causal mask, d_model={d_model}",
        )
        q, kv = rand(2, 4, d_model, seed=2), rand(2, 6, d_model, seed=3)
        same(
            mine(q, kv, kv, m),
            ref(q, kv, kv, m),
            "the output",
            f"cross-attention, len_q=4, len_k=6, d_model={d_model}",
        )
        # key != value: projecting the value with w_k, the key with w_v, or the key as the value cannot pass
        k, v = rand(2, 6, d_model, seed=5), rand(2, 6, d_model, seed=6)
        same(
            mine(q, k, v),
            ref(q, k, v),
            "the output",
            f"cross-attention, key != value, no mask, d_model={d_model}, h={h}",
        )
        same(
            mine(q, k, v, m),
            ref(q, k, v, m),
            "the output",
            f"key != value, padding mask (2, 1, 1, 6), d_model={d_model}",
        )
        same(
            mine(q, k, v, m2),
            ref(q, k, v, m2),
            "the output",
            f"key != value, mask (len_q, len_k) = (4, 6), d_model={d_model}",
        )
    # gradients with respect to the query, key and value, and every parameter
    inputs = [[t.clone().requires_grad_() for t in (q, k, v)] for _ in range(2)]
    mine(*inputs[0], m).pow(2).sum().backward()
    ref(*inputs[1], m).pow(2).sum().backward()
    for name, got, want in zip(("query", "key", "value"), *inputs):
        if got.grad is None:
            raise Miss(f"no gradient flows to the {name}", "Use differentiable torch operations.")
        same(got.grad, want.grad, f"the gradient with respect to the {name}", "cross-attention, padding mask")
    for name, p in ref.named_parameters():
        got = dict(mine.named_parameters())[name].grad
        if got is None:
            raise Miss(f"no gradient reaches `{name}`", "Every projection must be used in forward.")
        same(got, p.grad, f"the gradient of `{name}`")


def n_params(*modules):
    return sum(p.numel() for m in modules for p in m.parameters())


@question(QUESTIONS, 4, 2, "parameters with full-width heads")
def q4(ns):
    cfg = TransformerConfig.base(1, 1)
    d, h = cfg.d_model, cfg.h
    # h heads of width d_model each: W_Q, W_K, W_V map d_model -> h * d_model, W_O maps h * d_model -> d_model
    # (on the meta device: shapes only, no memory, no time)
    layers = [nn.Linear(d, h * d, device="meta") for _ in range(3)] + [nn.Linear(h * d, d, device="meta")]
    check_number(ns, "answer_q4", n_params(*layers), rel=0)


def symmetries():
    """The letters of question 5's true statements, decided by running the package's module on random inputs."""
    torch.manual_seed(0)
    mha = MultiHeadAttention(12, 3).eval()  # 3 heads of width 4
    for p in mha.parameters():
        nn.init.normal_(p, std=0.5)  # non-zero biases
    sd = mha.state_dict()
    x = rand(2, 5, 12, seed=31)
    with torch.no_grad():
        base = mha(x, x, x)

    def output(changes):
        "Self-attention output of a copy of `mha` with some parameters replaced."
        other = MultiHeadAttention(12, 3).eval()
        other.load_state_dict({**sd, **changes})
        with torch.no_grad():
            return other(x, x, x)

    def rows(names, idx):
        return {f"{n}.{w}": sd[f"{n}.{w}"][idx] for n in names for w in ("weight", "bias")}

    def scaled(name, factor):
        return {f"{name}.{w}": sd[f"{name}.{w}"] * factor for w in ("weight", "bias")}

    heads = torch.cat([torch.arange(i * 4, (i + 1) * 4) for i in (2, 0, 1)])  # the heads reordered 2, 0, 1
    within = torch.tensor([0, 1, 2, 3, 7, 5, 4, 6, 8, 9, 10, 11])  # head 1's four features shuffled
    qkv = ["w_q", "w_k", "w_v"]
    close = lambda a, b: torch.allclose(a, b, atol=1e-5, rtol=1e-4)
    holds = {
        "a": close(output({**rows(qkv, heads), "w_o.weight": sd["w_o.weight"][:, heads]}), base),
        "b": close(output(rows(qkv, heads)), base),
        "c": close(output(rows(["w_q", "w_k"], heads)), base),
        "d": close(output(rows(["w_q", "w_k"], within)), base),
        "e": close(
            output(
                {
                    "w_k.weight": sd["w_v.weight"],
                    "w_k.bias": sd["w_v.bias"],
                    "w_v.weight": sd["w_k.weight"],
                    "w_v.bias": sd["w_k.bias"],
                }
            ),
            base,
        ),
        "f": close(output({**scaled("w_q", 2.0), **scaled("w_k", 0.5)}), base),
        "g": close(output(scaled("w_v", 2.0)), 2 * base),
    }
    return "".join(letter for letter, true in holds.items() if true)


@question(QUESTIONS, 5, 2, "symmetries of multi-head attention")
def q5(ns):
    check_choices(ns, "answer_q5", correct=symmetries(), options="abcdefg")


def empty_row():
    "Question 6's cell: a package layer, and a mask that leaves query 0 no key. Returns (layer, x, mask)."
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(1, 4, 8)
    return mha, x, padding_mask(torch.tensor([[0, 5, 6, 7]]), 0) & causal_mask(4)


def empty_row_letter():
    "The option that row 0 of the package's output matches, on the cell's own inputs."
    mha, x, mask = empty_row()
    with torch.no_grad():
        row = mha(x, x, x, mask)[0, 0]
        options = {
            "a": torch.zeros(8),
            "b": mha.w_o.bias,
            "c": mha.w_o(mha.w_v(x).mean(dim=1))[0],
            "d": torch.full((8,), float("nan")),
        }
    [letter] = [k for k, want in options.items() if torch.allclose(row, want, atol=1e-6)]
    return letter


@question(QUESTIONS, 6, 1, "a query that may attend to nothing")
def q6(ns):
    check_choice(ns, "answer_q6", correct=empty_row_letter(), options="abcd")


@question(QUESTIONS, 7, 2, "why split d_model across the heads")
def q7(ns):
    # a: 52.4 M -> 419 M and 2.56 M -> 20.5 M are both x8. c: h = 1, d_k = 512 has the same projections and
    # h n^2 d_k = n^2 512 multiply-adds as h = 8, d_k = 64. b: h n^2 = 20,000 weights either way. d: dividing by
    # sqrt(d_k) keeps the scores at unit spread for every width (chapter 1). e: the spread grows as sqrt(d_k),
    # sqrt(512 / 64) = 2.8, not 8.
    check_choices(ns, "answer_q7", correct="ac", options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Keep the leading dimensions as they are (x.shape[:-2]); view the last dimension as (h, d_k), then "
        "move the head axis in front of the length axis (transpose(-3, -2) or movedim)."
    ),
    2: (
        "reshape reads the memory in order (head, position, feature). Put the position axis before the head "
        "axis (transpose(1, 2)) before you merge, and mind that the result is not contiguous."
    ),
    3: (
        "Project query, key and value with their own Linear layers, split each into heads with its own length "
        "(len_q for the query, len_k for key and value), call scaled_dot_product_attention with the mask, "
        "merge, then w_o."
    ),
    4: (
        "Count each Linear as in_features * out_features + out_features. Three projections of 512 -> 4096 and "
        "one of 4096 -> 512."
    ),
    5: (
        "Edit a copy of mha.state_dict() for each statement, load it into a second MultiHeadAttention(12, 3) "
        "and compare outputs with torch.allclose. Remember that the heads are concatenated before w_o."
    ),
    6: (
        "Run the cell and compare row 0 of the output with each option. What does chapter 1's attention "
        "return for a fully masked row, and what does w_o add to it?"
    ),
    7: (
        "Plug h and d_k into the table's formulas for each statement; for d and e, recall why chapter 1 "
        "divides by sqrt(d_k)."
    ),
}
