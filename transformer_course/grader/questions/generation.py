"""Exercise 8: decoding."""

import math

import torch

from transformer.generation import beam_search, greedy_search, length_penalty, sampling_probs
from transformer.model import TransformerConfig

from ..checks import Miss, check_choices, check_number, question
from ..learner import need
from ..tensors import rand, same
from .search_models import (
    BOS,
    EOS,
    SOURCES,
    UNK,
    A,
    B,
    first_token_trap,
    greedy_trap,
    long_or_short,
    pad_trap,
    random_model,
    show,
    unk_trap,
)

NOTEBOOK = "08_generation"
QUESTIONS = []


# ---------------------------------------------------------------- 1: greedy decoding
SEARCH_FORBID = [
    "transformer.generation.greedy_search",
    "transformer.generation.generate_step",
    "transformer.generation._generate",
    "transformer.generation.beam_search",
    "transformer.generation.sample",
]


@question(QUESTIONS, 1, 3, "greedy_search", forbid=SEARCH_FORBID)
def q1(ns):
    f = need(ns, "greedy_search", "function")
    two = torch.tensor([[A], [B]])  # the table models ignore their source
    cases = [
        (
            random_model(3),
            SOURCES,
            EOS,
            10,
            None,
            "random model (seed 3), 5 padded sources, max_len=10: outputs of 9, 10, 10, 2 and 10 tokens",
        ),
        (
            random_model(0),
            SOURCES,
            EOS,
            10,
            None,
            "random model (seed 0), max_len=10: two sentences end at once (<eos> first)",
        ),
        (random_model(0), SOURCES[3:4], EOS, 1, None, "one sentence, max_len=1"),
        (random_model(3), SOURCES[:2], None, 4, None, "eos_id=None: every sentence gets max_len=4 tokens"),
        (
            random_model(7, pad_id=1),
            SOURCES.masked_fill(SOURCES == 0, 1),
            EOS,
            10,
            None,
            "pad_id=1 (model.cfg.pad_id), sources padded with 1",
        ),
        (
            pad_trap(),
            two,
            EOS,
            6,
            None,
            "table model in which <pad> (id 0) is the most likely next token "
            "after <bos> and after A: padding is never a prediction",
        ),
        (
            unk_trap(),
            two,
            EOS,
            6,
            None,
            "table model in which <unk> (id 1) is the most likely first token; no ban, so <unk> may be chosen",
        ),
        (unk_trap(), two, EOS, 6, [UNK], "the same table model, ban=[1]: <unk> must never be chosen"),
        (unk_trap(), two, EOS, 6, [UNK, A], "the same table model, ban=[1, 4]"),
        (
            random_model(3),
            SOURCES,
            EOS,
            10,
            [EOS, 5],
            "random model (seed 3), ban=[3, 5]: with <eos> banned no sentence ends before max_len=10",
        ),
    ]
    for model, src, eos, max_len, ban, case in cases:
        want = greedy_search(model, src, BOS, eos, max_len, use_cache=False, ban=ban or ())
        kw = {} if ban is None else {"ban": list(ban)}
        encoded = count_rows(model, "encode")
        with torch.no_grad():
            got = f(model, src.clone(), BOS, eos, max_len, **kw)
        if encoded[0] != src.size(0):
            raise Miss(
                "the sources are not encoded once",
                f"Case {case}: model.encode read {encoded[0]} source rows for {src.size(0)} sentences. Encode "
                "each source once, before the loop; every step decodes with that memory.",
            )
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            raise Miss(
                "the result is not one list of token ids per sentence",
                f"Case {case}: expected a list of {len(want)} lists, got {type(got).__name__}"
                + (f" of length {len(got)}" if hasattr(got, "__len__") else "")
                + ".",
            )
        for b, (g, w) in enumerate(zip(got, want)):
            if not isinstance(g, list) or not all(isinstance(t, int) for t in g):
                raise Miss(
                    "a sentence's tokens are not a Python list of ints",
                    f"Case {case}; sentence {b} is a {type(g).__name__}"
                    + (f" of {type(g[0]).__name__}" if isinstance(g, (list, tuple)) and g else "")
                    + ": return a list of ints per sentence (tensor.tolist() gives one).",
                )
            if g != w:
                raise Miss("wrong tokens", f"Case {case}; sentence {b}: expected {show(w)}, got {show(g)}.")


def count_rows(model, name):
    "Count the batch rows model.<name> is called on from now on: a list whose one item the calls add to."
    rows, method = [0], getattr(model, name)

    def counted(src, *args, **kwargs):
        rows[0] += src.size(0)
        return method(src, *args, **kwargs)

    object.__setattr__(model, name, counted)
    return rows


# ---------------------------------------------------------------- 2, 3: the key/value cache
BASE = TransformerConfig.base(37000, 37000)
BIG = TransformerConfig.big(37000, 37000)


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


# ---------------------------------------------------------------- 5: beam search
def best(model, src, max_len, beam_size, alpha, ban=()):
    "The package's best hypothesis and its score, for one sentence."
    hyps, scores = beam_search(
        model, src, BOS, EOS, max_len, beam_size=beam_size, alpha=alpha, use_cache=False, ban=ban
    )
    return hyps[0][0], scores[0][0]


@question(QUESTIONS, 5, 4, "beam_search", forbid=["transformer.generation.beam_search"])
def q5(ns):
    f = need(ns, "beam_search", "function")
    trap, longer, one = greedy_trap(), long_or_short(), torch.tensor([[A]])
    cases = [
        (
            trap,
            one,
            5,
            2,
            0.0,
            None,
            "table model where greedy picks A but 'B <eos>' is best; beam 2, alpha 0",
        ),
        (trap, one, 5, 2, 0.6, None, "the same table model, beam 2, alpha 0.6"),
        (trap, one, 5, 1, 0.6, None, "the same table model, beam 1 (greedy)"),
        (trap, one, 5, 4, 0.6, None, "the same table model, beam 4, max_len 5"),
        (longer, one, 8, 3, 0.0, None, "table model, beam 3, alpha 0: the short 'A <eos>' wins"),
        (longer, one, 8, 3, 1.0, None, "the same table model, beam 3, alpha 1: a longer output wins"),
        (
            longer,
            one,
            3,
            2,
            1.0,
            None,
            "the same table model, beam 2, alpha 1, max_len 3: "
            "open beams are scored as they are when max_len is reached",
        ),
    ]
    for seed, row, k in ((3, 0, 3), (3, 3, 4), (5, 1, 2)):
        src = SOURCES[row : row + 1]
        cases.append(
            (
                random_model(seed),
                src[src != 0][None],
                6,
                k,
                0.6,
                None,
                f"random model (seed {seed}), source {show(src[src != 0].tolist())}, beam {k}, alpha 0.6, max_len 6",
            )
        )
    cases += [
        (
            pad_trap(),
            one,
            6,
            2,
            0.6,
            None,
            "table model in which <pad> (id 0) is the most likely next token after "
            "<bos>, A and C; beam 2, alpha 0.6: padding is never a candidate",
        ),
        (pad_trap(), one, 6, 1, 0.0, None, "the same table model, beam 1, alpha 0"),
        (
            unk_trap(),
            one,
            6,
            2,
            0.6,
            None,
            "table model in which <unk> (id 1) is the most likely first token; beam 2, no ban",
        ),
        (unk_trap(), one, 6, 2, 0.6, [UNK], "the same table model, beam 2, ban=[1]"),
        (unk_trap(), one, 6, 1, 0.6, [UNK], "the same table model, beam 1, ban=[1]"),
        (unk_trap(), one, 6, 3, 0.0, [UNK, A], "the same table model, beam 3, alpha 0, ban=[1, 4]"),
    ]
    for model, src, max_len, k, alpha, ban, case in cases:
        want_tokens, want_score = best(model, src, max_len, k, alpha, ban or ())
        kw = {} if ban is None else {"ban": list(ban)}
        with torch.no_grad():
            got = f(model, src.clone(), BOS, EOS, max_len, beam_size=k, alpha=alpha, **kw)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise Miss("the result is not a pair (tokens, score)", f"Case {case}: got {type(got).__name__}.")
        tokens, score = got
        tokens = tokens.tolist() if isinstance(tokens, torch.Tensor) else list(tokens)
        tokens = [int(t) for t in tokens]
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise Miss("the score is not a number", f"Case {case}: got a {type(score).__name__}.") from None
        if tokens != want_tokens:
            raise Miss(
                "wrong best hypothesis",
                f"Case {case}: expected {show(want_tokens)} (score {want_score:.4f}), "
                f"got {show(tokens)} (score {score:.4f}).",
            )
        if not math.isclose(score, want_score, rel_tol=1e-4, abs_tol=1e-4):
            raise Miss(
                "wrong score",
                f"Case {case}: the tokens {show(tokens)} are right; expected the score "
                f"log P / lp = {want_score:.4f}, got {score:.4f}.",
            )


# ---------------------------------------------------------------- 6: sampling, one temperature per row
def per_row(logits, temperature, **kw):
    "The package's sampling_probs applied row by row, each row with its own temperature."
    flat, temps = logits.reshape(-1, logits.size(-1)), temperature.reshape(-1)
    out = torch.stack([sampling_probs(flat[i], temperature=float(temps[i]), **kw) for i in range(flat.size(0))])
    return out.reshape(logits.shape)


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


# ---------------------------------------------------------------- 8: predict, then check: how wide a beam?


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
