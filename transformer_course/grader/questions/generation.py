"""Exercise 8: decoding."""

import math

import torch

from transformer.generation import greedy_search, length_penalty, sampling_probs

from ..checks import Miss, check_choices, check_number, question
from ..learner import need
from ..tensors import rand, same
from .generation_cases import (  # noqa: F401
    BASE,
    BIG,
    SEARCH_FORBID,
    best,
    check_beam_search,
    check_greedy_search,
    count_rows,
    per_row,
)
from .search_models import (
    BOS,
    SOURCES,
    A,
    first_token_trap,
    random_model,
)

NOTEBOOK = "08_generation"

QUESTIONS = []


@question(QUESTIONS, 1, 3, "greedy_search", forbid=SEARCH_FORBID)
def q1(ns):
    check_greedy_search(ns)


@question(QUESTIONS, 2, 1, "bytes of key/value cache with shared key/value heads")
def q2(ns):
    # a KVCache-like cache keeps, per row (16 sentences x 5 beams), layer and position, a key and a value for each of the
    # 2 key/value heads, d_k numbers each, for the 40 source positions (copied per beam) and the 45 target positions
    rows, positions, kv_heads, bytes_per_number = 16 * 5, 40 + 45, 2, 4
    check_number(ns, "answer_q2", 2 * kv_heads * BIG.d_k * BIG.n_layers * bytes_per_number * positions * rows, rel=0)


@question(QUESTIONS, 3, 1, "decoder position evaluations saved by the cache")
def q3(ns):
    # without a cache, step t (t = 1..n) runs every layer over t positions; with it, over 1
    n, N = 50, BASE.n_layers
    check_number(ns, "answer_q3", N * sum(t - 1 for t in range(1, n + 1)), rel=0)


# ---------------------------------------------------------------- 4: length penalty
@question(QUESTIONS, 4, 1, "length_penalty", forbid=["transformer.generation.length_penalty"])
def q4(ns):
    f = need(ns, "length_penalty", "function")
    for length in (1, 2, 7, 40):
        for alpha in (0.0, 0.6, 1.0):
            got, want = f(length, alpha), length_penalty(length, alpha)
            try:
                got = float(got)
            except (TypeError, ValueError):
                raise Miss(
                    "the result is not a number",
                    f"length_penalty({length}, {alpha}) returned a {type(got).__name__}.",
                ) from None
            if not math.isclose(got, want, rel_tol=1e-6):
                raise Miss(
                    "wrong value",
                    f"length_penalty({length}, alpha={alpha}): expected {want:.6g}, got {got:.6g}.",
                )
    lengths = torch.arange(1, 9)
    same(
        f(lengths, 0.6),
        length_penalty(lengths, 0.6),
        "length_penalty(lengths, 0.6)",
        "a tensor of lengths 1..8, as beam search uses it",
    )
    if not math.isclose(float(f(3)), length_penalty(3), rel_tol=1e-6):
        raise Miss("wrong default alpha", "length_penalty(3) should use the paper's alpha = 0.6.")


@question(QUESTIONS, 5, 4, "beam_search", forbid=["transformer.generation.beam_search"])
def q5(ns):
    check_beam_search(ns)


@question(
    QUESTIONS,
    6,
    3,
    "sampling_probs",
    forbid=["transformer.generation.sampling_probs", "transformer.generation.sample"],
)
def q6(ns):
    f = need(ns, "sampling_probs", "function")
    rows = rand(40, 12, seed=1) * 2  # 40 random next-token distributions over 12 tokens
    cases = [
        ({}, "temperature 1"),
        (dict(temperature=0.5), "temperature 0.5"),
        (dict(temperature=2.0), "temperature 2"),
        (dict(top_k=1), "top_k=1"),
        (dict(top_k=4), "top_k=4"),
        (dict(top_k=12), "top_k=12 (the whole vocabulary)"),
        (dict(top_p=1e-6), "top_p=1e-6 (only the most likely token survives)"),
        (dict(top_p=0.5), "top_p=0.5"),
        (dict(top_p=0.9), "top_p=0.9"),
        (dict(temperature=0.7, top_k=5, top_p=0.6), "temperature 0.7, top_k=5, top_p=0.6"),
        (dict(temperature=2.0, top_k=6, top_p=0.5), "temperature 2, top_k=6, top_p=0.5"),
        (dict(temperature=0), "temperature 0: all the mass on the arg-max"),
    ]
    for kw, case in cases:
        same(f(rows, **kw), sampling_probs(rows, **kw), "the distribution", f"{case}; logits (40, 12)")
    # one temperature per row: a batch of requests from different users
    temps = torch.tensor([0.5, 1.0, 2.0, 0.0, 0.7, 3.0, 0.0, 1.3] * 5)  # (40,): rows 3, 7, 11, ... are greedy
    shown = "temperature = tensor([0.5, 1.0, 2.0, 0.0, 0.7, 3.0, 0.0, 1.3] * 5), one per row"
    for kw, case in [
        ({}, shown),
        (dict(top_k=4), f"{shown}, top_k=4"),
        (dict(top_p=0.8), f"{shown}, top_p=0.8"),
        (dict(top_k=6, top_p=0.6), f"{shown}, top_k=6, top_p=0.6"),
    ]:
        same(
            f(rows, temperature=temps.clone(), **kw),
            per_row(rows, temps, **kw),
            "the distribution",
            f"{case}; logits (40, 12)",
        )
    batch, batch_temps = rand(2, 3, 12, seed=2) * 3, torch.tensor([[0.8, 0.0, 1.5], [2.0, 0.3, 1.0]])
    same(
        f(batch, temperature=batch_temps.clone(), top_k=3, top_p=0.7),
        per_row(batch, batch_temps, top_k=3, top_p=0.7),
        "the distribution",
        "logits of shape (2, 3, 12), temperature of shape (2, 3) (one 0), top_k=3, top_p=0.7",
    )


# ---------------------------------------------------------------- 7: find the bug: greedy decoding with the cache
@question(QUESTIONS, 7, 3, "greedy_with_cache", forbid=SEARCH_FORBID)
def q7(ns):
    f = need(ns, "greedy_with_cache", "function")
    cases = [
        (3, SOURCES, 10, "random model (seed 3), 5 padded sources, max_len=10"),
        (0, SOURCES[:2], 8, "random model (seed 0), 2 sources, max_len=8"),
        (7, SOURCES, 10, "random model (seed 7), 5 padded sources, max_len=10"),
        (0, SOURCES[3:4], 1, "random model (seed 0), one sentence, max_len=1"),
    ]
    for seed, src, max_len, case in cases:
        model = random_model(seed)
        want = torch.tensor(
            greedy_search(model, src, BOS, None, max_len)
        )  # (batch, max_len): eos_id=None, no early end
        lengths = []  # positions fed to the decoder per call
        model.decoder.register_forward_pre_hook(lambda module, args: lengths.append(args[0].size(1)))
        with torch.no_grad():
            got = f(model, src.clone(), BOS, max_len)
        same(got, want, "the output", case)
        if any(n != 1 for n in lengths):
            raise Miss(
                "the decoder reruns the whole prefix",
                f"Case {case}: the decoder was called on {max(lengths)} "
                "positions at once; with the cache each step feeds only the newest token.",
            )


@question(QUESTIONS, 8, 2, "the narrowest beam that finds the best output")
def q8(ns):
    model, src = first_token_trap(), torch.tensor([[A]])
    found = {k: best(model, src, 5, k, 0.0)[0] for k in range(1, 10)}  # a beam of 9 keeps every first token
    check_number(ns, "answer_q8", min(k for k, tokens in found.items() if tokens == found[9]), rel=0)


# ---------------------------------------------------------------- 9: explain with a number: alpha = 0
@question(QUESTIONS, 9, 2, "why alpha = 0 favours short outputs")
def q9(ns):
    # long_or_short(): "A <eos>" has P = 0.52 x 0.96 = 0.499 (log -0.695), "B C D <eos>" 0.48 x 0.99^3 = 0.466 (log -0.764);
    # lp(2) = (7/6)^0.6 = 1.097, lp(4) = (9/6)^0.6 = 1.275. True: (a) and (d).
    check_choices(ns, "answer_q9", correct="ad", options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Encode once; keep a (batch, t) tensor of ids and a `done` flag per sentence. Set the logits of "
        "padding and of banned ids to -inf before argmax; cut each row at eos and return lists of ints."
    ),
    2: (
        "Per row, layer and position a key and a value of n_kv_heads * d_k floats of 4 bytes; self-attention "
        "holds the target positions, cross-attention the source positions."
    ),
    3: (
        "Without a cache step t evaluates t positions per layer, with it 1. Sum over the steps and multiply "
        "by the layers."
    ),
    4: "((5 + length) / 6) ** alpha works for an int and for a tensor alike.",
    5: (
        "Keep (tokens, logP, finished) per hypothesis; extend only the open ones by every allowed token with "
        "log_softmax over the whole vocabulary; carry finished ones over unchanged; sort candidates by logP / "
        "length_penalty(|Y|, alpha)."
    ),
    6: (
        "Make the temperature a tensor of shape logits.shape[:-1] + (1,); divide where it is positive, and "
        "give the rows at 0 a one-hot on their argmax instead, so no row divides by zero."
    ),
    7: (
        "With the cache, the decoder is given one token: at which position does the positional encoding put "
        "it? Pass the step's position to model.decode."
    ),
    8: (
        "Compute P for each complete output by hand (the probabilities along the path), then run beam_search "
        "with beam sizes 1, 2, 3, ... and alpha=0."
    ),
    9: (
        "Work out lp(Y) at alpha = 0 and compute both scores; for (c) and (e), try beam_search with 7 beams "
        "and think about what a finished hypothesis keeps."
    ),
}
