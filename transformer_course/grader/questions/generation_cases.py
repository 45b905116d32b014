"""The cases and helpers of generation.py's questions (exercise generation): inputs, expected values, references."""

import math

import torch

from transformer.generation import beam_search, greedy_search, sampling_probs
from transformer.model import TransformerConfig

from ..checks import Miss
from ..learner import need
from .search_models import (
    BOS,
    EOS,
    SOURCES,
    UNK,
    A,
    B,
    greedy_trap,
    long_or_short,
    pad_trap,
    random_model,
    show,
    unk_trap,
)

# ---------------------------------------------------------------- 1: greedy decoding
SEARCH_FORBID = [
    "transformer.generation.greedy_search",
    "transformer.generation.generate_step",
    "transformer.generation._generate",
    "transformer.generation.beam_search",
    "transformer.generation.sample",
]


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


# ---------------------------------------------------------------- 5: beam search
def best(model, src, max_len, beam_size, alpha, ban=()):
    "The package's best hypothesis and its score, for one sentence."
    hyps, scores = beam_search(
        model, src, BOS, EOS, max_len, beam_size=beam_size, alpha=alpha, use_cache=False, ban=ban
    )
    return hyps[0][0], scores[0][0]


# ---------------------------------------------------------------- 6: sampling, one temperature per row
def per_row(logits, temperature, **kw):
    "The package's sampling_probs applied row by row, each row with its own temperature."
    flat, temps = logits.reshape(-1, logits.size(-1)), temperature.reshape(-1)
    out = torch.stack([sampling_probs(flat[i], temperature=float(temps[i]), **kw) for i in range(flat.size(0))])
    return out.reshape(logits.shape)


def check_greedy_search(ns):
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


def check_beam_search(ns):
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
