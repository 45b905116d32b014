"""Exercise 8: decoding."""
import math
from types import SimpleNamespace

import torch

from transformer.decoding import beam_search, greedy_decode, length_penalty, sampling_probs
from transformer.model import Transformer, TransformerConfig
from ..checks import Miss, check_number, need, question, rand, same

NOTEBOOK = "08_decoding"
QUESTIONS = []

PAD, BOS, EOS = 0, 2, 3            # the special ids of chapters 7 and 8; real tokens start at 4


def random_model(seed, vocab=8, pad_id=PAD):
    "A small Transformer with random weights and no dropout, in eval mode (untied output: more varied tokens)."
    torch.manual_seed(seed)
    cfg = TransformerConfig(vocab, vocab, d_model=16, n_layers=2, h=2, d_ff=32, dropout=0.0,
                            tie_output=False, pad_id=pad_id)
    return Transformer(cfg).eval()


class TableModel(torch.nn.Module):
    """A stand-in for a Transformer: the next token's log-probabilities are a fixed table row chosen by
    the previous token. It has what decoding uses: `encode`, `decode` and `cfg.pad_id`."""
    def __init__(self, table):                                   # table (vocab, vocab): row = previous token
        super().__init__()
        self.log_table = (table + 1e-9).log()                   # rows sum to 1 (or are all zero: then uniform)
        self.cfg = SimpleNamespace(pad_id=PAD, src_vocab=table.size(0), tgt_vocab=table.size(0))

    def encode(self, src, src_mask=None):
        return torch.zeros(src.size(0), src.size(1), 1)          # (batch, len_s, 1): the table ignores the source

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None, cache=None, start=0):
        return self.log_table[tgt]                               # (batch, len_t, vocab)


A, B, C, D = 4, 5, 6, 7


def greedy_trap():
    """Greedy takes A (0.6), then nothing better than <eos> at 0.34: 0.204. "B <eos>" has 0.4 x 0.99 = 0.396.
    After <eos> the table is flat: a finished hypothesis that is extended keeps losing probability."""
    t = torch.zeros(7, 7)
    t[BOS, [A, B]] = torch.tensor([0.6, 0.4])
    t[A, [EOS, A, C]] = torch.tensor([0.34, 0.33, 0.33])
    t[B, [EOS, C]] = torch.tensor([0.99, 0.01])
    t[C, [EOS, A]] = torch.tensor([0.9, 0.1])
    t[EOS, [EOS, A, B, C]] = 0.25
    return TableModel(t)


def long_or_short():
    """A model for the length penalty: "A <eos>" (0.52 x 0.96 = 0.499) has the highest probability, but
    "B C D <eos>" (0.48 x 0.99^3 = 0.466) wins once scores are divided by lp(|Y|) with alpha = 0.6 or 1."""
    t = torch.zeros(8, 8)
    t[BOS, [A, B]] = torch.tensor([0.52, 0.48])
    t[A, [EOS, C]] = torch.tensor([0.96, 0.04])
    t[B, [C, EOS]] = torch.tensor([0.99, 0.01])
    t[C, [D, EOS]] = torch.tensor([0.99, 0.01])
    t[D, [EOS, C]] = torch.tensor([0.99, 0.01])
    t[EOS, EOS] = 1.0
    return TableModel(t)


SOURCES = torch.tensor([[5, 6, 4, 7, 6, 5], [7, 4, 4, 0, 0, 0], [6, 6, 5, 7, 0, 0], [4, 5, 0, 0, 0, 0], [7, 7, 7, 7, 7, 0]])


def show(ids):
    return "[" + ", ".join(map(str, ids)) + "]"


# ---------------------------------------------------------------- 1: greedy decoding
@question(QUESTIONS, 1, 3, "greedy_decode",
          forbid=["transformer.decoding.greedy_decode", "transformer.decoding.decode_step",
                  "transformer.decoding._generate", "transformer.decoding.beam_search", "transformer.decoding.sample"])
def q1(ns):
    f = need(ns, "greedy_decode", "function")
    cases = [(random_model(3), SOURCES, EOS, 10, "random model (seed 3), 5 padded sources, max_len=10: "
                                                 "outputs of 9, 10, 10, 2 and 10 tokens"),
             (random_model(0), SOURCES, EOS, 10, "random model (seed 0), max_len=10: two sentences end at once (<eos> first)"),
             (random_model(0), SOURCES[3:4], EOS, 1, "one sentence, max_len=1"),
             (random_model(3), SOURCES[:2], None, 4, "eos_id=None: every sentence gets max_len=4 tokens"),
             (random_model(7, pad_id=1), SOURCES.masked_fill(SOURCES == 0, 1), EOS, 10,
              "pad_id=1 (model.cfg.pad_id), sources padded with 1")]
    for model, src, eos, max_len, case in cases:
        want = greedy_decode(model, src, BOS, eos, max_len, use_cache=False)
        with torch.no_grad():
            got = f(model, src.clone(), BOS, eos, max_len)
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            raise Miss("the result is not one list of token ids per sentence",
                       f"Case {case}: expected a list of {len(want)} lists, got {type(got).__name__}"
                       + (f" of length {len(got)}" if hasattr(got, "__len__") else "") + ".")
        for b, (g, w) in enumerate(zip(got, want)):
            g = g.tolist() if isinstance(g, torch.Tensor) else list(g)
            if [int(t) for t in g] != w:
                raise Miss("wrong tokens", f"Case {case}; sentence {b}: expected {show(w)}, got {show(g)}.")


# ---------------------------------------------------------------- 2, 3: the key/value cache
BASE = TransformerConfig.base(37000, 37000)


@question(QUESTIONS, 2, 1, "bytes of key/value cache per target token")
def q2(ns):
    check_number(ns, "answer_q2", 2 * BASE.d_model * BASE.n_layers * 4, rel=0)


@question(QUESTIONS, 3, 1, "decoder position evaluations saved by the cache")
def q3(ns):
    # without a cache, step t (t = 1..n) runs every layer over t positions; with it, over 1
    n, N = 50, BASE.n_layers
    check_number(ns, "answer_q3", N * sum(t - 1 for t in range(1, n + 1)), rel=0)


# ---------------------------------------------------------------- 4: length penalty
@question(QUESTIONS, 4, 1, "length_penalty", forbid=["transformer.decoding.length_penalty"])
def q4(ns):
    f = need(ns, "length_penalty", "function")
    for length in (1, 2, 7, 40):
        for alpha in (0.0, 0.6, 1.0):
            got, want = f(length, alpha), length_penalty(length, alpha)
            try:
                got = float(got)
            except (TypeError, ValueError):
                raise Miss("the result is not a number", f"length_penalty({length}, {alpha}) returned a {type(got).__name__}.") from None
            if not math.isclose(got, want, rel_tol=1e-6):
                raise Miss("wrong value", f"length_penalty({length}, alpha={alpha}): expected {want:.6g}, got {got:.6g}.")
    lengths = torch.arange(1, 9)
    same(f(lengths, 0.6), length_penalty(lengths, 0.6), "length_penalty(lengths, 0.6)",
         "a tensor of lengths 1..8, as beam search uses it")
    if not math.isclose(float(f(3)), length_penalty(3), rel_tol=1e-6):
        raise Miss("wrong default alpha", "length_penalty(3) should use the paper's alpha = 0.6.")


# ---------------------------------------------------------------- 5: beam search
def best(model, src, max_len, beam_size, alpha):
    "The package's best hypothesis and its score, for one sentence."
    hyps, scores = beam_search(model, src, BOS, EOS, max_len, beam_size=beam_size, alpha=alpha, use_cache=False)
    return hyps[0][0], scores[0][0]


@question(QUESTIONS, 5, 4, "beam_search", forbid=["transformer.decoding.beam_search"])
def q5(ns):
    f = need(ns, "beam_search", "function")
    trap, longer = greedy_trap(), long_or_short()
    cases = [(trap, torch.tensor([[A]]), 5, 2, 0.0, "table model where greedy picks A but 'B <eos>' is best; beam 2, alpha 0"),
             (trap, torch.tensor([[A]]), 5, 2, 0.6, "the same table model, beam 2, alpha 0.6"),
             (trap, torch.tensor([[A]]), 5, 1, 0.6, "the same table model, beam 1 (greedy)"),
             (trap, torch.tensor([[A]]), 5, 4, 0.6, "the same table model, beam 4, max_len 5"),
             (longer, torch.tensor([[A]]), 8, 3, 0.0, "table model, beam 3, alpha 0: the short 'A <eos>' wins"),
             (longer, torch.tensor([[A]]), 8, 3, 1.0, "the same table model, beam 3, alpha 1: a longer output wins"),
             (longer, torch.tensor([[A]]), 3, 2, 1.0, "the same table model, beam 2, alpha 1, max_len 3: "
                                                       "open beams are scored as they are when max_len is reached")]
    for seed, row, k in ((3, 0, 3), (3, 3, 4), (5, 1, 2)):
        src = SOURCES[row:row + 1]
        cases.append((random_model(seed), src[src != 0][None], 6, k, 0.6,
                      f"random model (seed {seed}), source {show(src[src != 0].tolist())}, beam {k}, alpha 0.6, max_len 6"))
    for model, src, max_len, k, alpha, case in cases:
        want_tokens, want_score = best(model, src, max_len, k, alpha)
        with torch.no_grad():
            got = f(model, src.clone(), BOS, EOS, max_len, beam_size=k, alpha=alpha)
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
            raise Miss("wrong best hypothesis", f"Case {case}: expected {show(want_tokens)} (score {want_score:.4f}), "
                                                f"got {show(tokens)} (score {score:.4f}).")
        if not math.isclose(score, want_score, rel_tol=1e-4, abs_tol=1e-4):
            raise Miss("wrong score", f"Case {case}: the tokens {show(tokens)} are right; expected the score "
                                      f"log P / lp = {want_score:.4f}, got {score:.4f}.")


# ---------------------------------------------------------------- 6: sampling
@question(QUESTIONS, 6, 3, "sampling_probs",
          forbid=["transformer.decoding.sampling_probs", "transformer.decoding.sample"])
def q6(ns):
    f = need(ns, "sampling_probs", "function")
    rows = rand(40, 12, seed=1) * 2                               # 40 random next-token distributions over 12 tokens
    cases = [({}, "temperature 1"), (dict(temperature=0.5), "temperature 0.5"), (dict(temperature=2.0), "temperature 2"),
             (dict(top_k=1), "top_k=1"), (dict(top_k=4), "top_k=4"), (dict(top_k=12), "top_k=12 (the whole vocabulary)"),
             (dict(top_p=1e-6), "top_p=1e-6 (only the most likely token survives)"), (dict(top_p=0.5), "top_p=0.5"),
             (dict(top_p=0.9), "top_p=0.9"), (dict(temperature=0.7, top_k=5, top_p=0.6), "temperature 0.7, top_k=5, top_p=0.6"),
             (dict(temperature=2.0, top_k=6, top_p=0.5), "temperature 2, top_k=6, top_p=0.5"),
             (dict(temperature=0), "temperature 0: all the mass on the arg-max")]
    for kw, case in cases:
        same(f(rows, **kw), sampling_probs(rows, **kw), "the distribution", f"{case}; logits (40, 12)")
    batch = rand(2, 3, 12, seed=2) * 3
    same(f(batch, temperature=0.8, top_k=3, top_p=0.7), sampling_probs(batch, temperature=0.8, top_k=3, top_p=0.7),
         "the distribution", "logits of shape (2, 3, 12), temperature 0.8, top_k=3, top_p=0.7")
