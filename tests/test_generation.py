"""Tests for transformer.generation (chapter 8): greedy decoding, beam search, sampling and the key/value cache;
and for transformer.batched_search (chapter 16), where a finished sentence leaves the batch.

The references are written independently of the code under test: the full model run on the
whole prefix (no cache, no batching), an exhaustive search over every possible output, a
hand-built model whose next-token distribution is a fixed table, and the definitions of
temperature, top-k and top-p written out as loops.
"""

import itertools
import math
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close
from training_helpers import one_thread  # noqa: F401 (an autouse fixture: tiny models run on one thread)

from transformer.attention import causal_mask, padding_mask
from transformer.batched_search import batched_search
from transformer.generation import (
    KVCache,
    beam_search,
    beam_search_lists,
    generate_step,
    greedy_search,
    length_penalty,
    sample,
    sampling_probs,
)
from transformer.model import Transformer, TransformerConfig
from transformer.training import BOS, EOS, PAD, UNK

SRC = torch.tensor([[5, 6, 4, 7, 6, 5], [7, 4, 4, 0, 0, 0], [6, 6, 5, 7, 0, 0], [4, 5, 0, 0, 0, 0]])


def random_model(seed=8, vocab=8, d_model=32, n_layers=2, **kw):
    "Random weights; an untied output layer, so outputs vary (a random tied model mostly repeats its input token)."
    torch.manual_seed(seed)
    args = dict(d_model=d_model, n_layers=n_layers, h=4, d_ff=2 * d_model, dropout=0.0, tie_output=False, max_len=64)
    return Transformer(TransformerConfig(vocab, vocab, **{**args, **kw})).eval()


def encode(model, src):
    src_mask = padding_mask(src, PAD)
    return model.encode(src, src_mask), src_mask


def strip(ids):
    out = []
    for t in ids:
        if t in (EOS, PAD):
            break
        out.append(t)
    return out


@torch.no_grad()
def greedy_reference(model, src_row, max_len):
    "One sentence, padding removed, the full model on the whole prefix at every step."
    src_row = src_row[src_row != PAD][None]
    ys = [BOS]
    for _ in range(max_len):
        logits = model(src_row, torch.tensor([ys]))[0, -1]
        logits[PAD] = -math.inf
        ys.append(int(logits.argmax()))
        if ys[-1] == EOS:
            return ys[1:-1]
    return ys[1:]


@torch.no_grad()
def teacher_forced_logp(model, src_row, y):
    "log P(y | x) by one teacher-forced pass; y is the generated tokens (eos included if any)."
    src_row = src_row[src_row != PAD][None]
    tgt_in = torch.tensor([[BOS] + y[:-1]])
    logp = model(src_row, tgt_in).log_softmax(-1)[0]
    return sum(logp[i, t].item() for i, t in enumerate(y))


@torch.no_grad()
def brute_force(model, src_row, max_len, alpha):
    "Every output the search can produce, scored by teacher forcing: [(score, tokens)] best first."
    src_row = src_row[src_row != PAD]
    tokens = [i for i in range(model.cfg.tgt_vocab) if i not in (PAD, EOS)]
    scored = []
    for n in range(1, max_len + 1):
        outputs = [list(p) + [EOS] for p in itertools.product(tokens, repeat=n - 1)]
        if n == max_len:
            outputs += [list(p) for p in itertools.product(tokens, repeat=n)]
        y = torch.tensor(outputs)
        tgt_in = torch.cat([torch.full((len(y), 1), BOS), y[:, :-1]], dim=1)
        logp = model(src_row.expand(len(y), -1), tgt_in).log_softmax(-1)
        total = logp.gather(-1, y[..., None]).squeeze(-1).sum(-1)
        scored += [(t / ((5 + n) / 6) ** alpha, strip(o)) for t, o in zip(total.tolist(), outputs)]
    return sorted(scored, key=lambda s: s[0], reverse=True)


class TableModel(torch.nn.Module):
    "Next-token distribution = a fixed table indexed by the previous token; counts decode calls."

    def __init__(self, table):
        super().__init__()
        self.log_table = (table + 1e-9).log()
        self.cfg = SimpleNamespace(pad_id=PAD)
        self.calls = 0

    def encode(self, src, src_mask=None):
        return torch.zeros(src.size(0), src.size(1), 1)

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None, cache=None, start=0):
        self.calls += 1
        return self.log_table[tgt]


A, B, C = 4, 5, 6


def greedy_trap():
    "Greedy picks A (0.6) whose continuations are all about 0.33; B (0.4) is followed by eos with 0.99."
    table = torch.zeros(7, 7)
    table[BOS, [A, B]] = torch.tensor([0.6, 0.4])
    table[A, [EOS, A, C]] = torch.tensor([0.34, 0.33, 0.33])
    table[B, [EOS, C]] = torch.tensor([0.99, 0.01])
    table[C, EOS] = 1.0
    return TableModel(table)


# ---------------------------------------------------------------- one step and the cache


@torch.no_grad()
def test_decode_step_equals_teacher_forcing():
    model = random_model(seed=0, vocab=12)
    tgt = torch.tensor([[BOS, 6, 7, 4, 9, 5, 10], [BOS, 11, 4, 8, 6, 6, 9]])
    src = SRC[:2]
    full = model(src, tgt)  # (2, 7, vocab), one pass
    memory, src_mask = encode(model, src)
    for t in range(1, tgt.size(1) + 1):
        assert_close(generate_step(model, tgt[:, :t], memory, src_mask), full[:, t - 1], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("pre_norm,fast", [(False, False), (True, False), (False, True)])
@torch.no_grad()
def test_cached_logits_equal_uncached(pre_norm, fast):
    model = random_model(seed=1, vocab=12, n_layers=3, pre_norm=pre_norm, fast_attention=fast)
    memory, src_mask = encode(model, SRC)
    g = torch.Generator().manual_seed(0)
    ys = torch.cat([torch.full((4, 1), BOS), torch.randint(4, 12, (4, 15), generator=g)], dim=1)
    cache = KVCache(model, memory)
    for t in range(1, ys.size(1) + 1):
        cached = generate_step(model, ys[:, :t], memory, src_mask, cache)
        uncached = model.decode(ys[:, :t], memory, src_mask, causal_mask(t))[:, -1]
        assert_close(cached, uncached, atol=1e-5, rtol=1e-5)
    assert len(cache) == ys.size(1)


@torch.no_grad()
def test_decode_step_rejects_a_cache_out_of_step():
    model = random_model()
    memory, src_mask = encode(model, SRC)
    cache = KVCache(model, memory)
    with pytest.raises(ValueError):
        generate_step(model, torch.full((4, 3), BOS), memory, src_mask, cache)  # cache empty, prefix of 3


@pytest.mark.parametrize("repeats", [1, 3])
@torch.no_grad()
def test_cache_size_is_two_d_model_floats_per_token_and_layer(repeats):
    d_model, n_layers, steps = 32, 3, 5
    model = random_model(n_layers=n_layers, d_model=d_model)
    memory, _ = encode(model, SRC)  # 4 sentences of 6 source tokens
    cache = KVCache(model, memory, repeats)
    src_mask = padding_mask(SRC, PAD).repeat_interleave(repeats, 0)
    ys = torch.full((4 * repeats, 1), BOS)
    for _ in range(steps):
        nxt = generate_step(model, ys, memory.repeat_interleave(repeats, 0), src_mask, cache).argmax(-1)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
    rows = 4 * repeats
    assert cache.nbytes() == 2 * d_model * 4 * n_layers * rows * (steps + SRC.size(1))


def count_cross_projections(model):
    calls = []
    for layer in model.decoder.layers:
        original = layer.cross_attn.project_kv
        layer.cross_attn.project_kv = lambda k, v, f=original: calls.append(k.size(0)) or f(k, v)
    return calls


@torch.no_grad()
def test_cross_attention_keys_and_values_are_computed_once_per_sentence():
    model = random_model(n_layers=3)
    calls = count_cross_projections(model)
    greedy_search(model, SRC, BOS, None, 6)  # 6 steps
    assert calls == [4] * 3  # once per layer, for the 4 sentences
    calls.clear()
    beam_search(model, SRC, BOS, None, 6, beam_size=3)
    assert calls == [4] * 3  # per sentence, not per beam
    calls.clear()
    greedy_search(model, SRC, BOS, None, 6, use_cache=False)
    assert len(calls) == 3 * 6  # without a cache: every layer, every step


@torch.no_grad()
def test_reorder_moves_rows_within_sentences():
    model = random_model(seed=2, vocab=12)
    src = SRC[:2]
    K = 3
    memory, src_mask = encode(model, src)
    memory_k, mask_k = memory.repeat_interleave(K, 0), src_mask.repeat_interleave(K, 0)
    g = torch.Generator().manual_seed(1)
    ys = torch.cat([torch.full((2 * K, 1), BOS), torch.randint(4, 12, (2 * K, 5), generator=g)], dim=1)
    cache = KVCache(model, memory, K)
    for t in range(1, 6):
        generate_step(model, ys[:, :t], memory_k, mask_k, cache)
    index = torch.tensor([2, 2, 0, 4, 3, 3])  # copy and drop beams inside each sentence
    cache.reorder(index)
    ys = ys[index]
    assert_close(
        generate_step(model, ys, memory_k, mask_k, cache),
        model.decode(ys, memory_k, mask_k, causal_mask(ys.size(1)))[:, -1],
        atol=1e-5,
        rtol=1e-5,
    )
    with pytest.raises(ValueError):
        cache.reorder(torch.tensor([3, 1, 2, 0, 4, 5]))  # row 3 belongs to the other sentence


# ---------------------------------------------------------------- greedy


@pytest.mark.parametrize("use_cache", [True, False])
def test_greedy_matches_an_unbatched_reference(use_cache):
    model = random_model(seed=8, vocab=8)
    out = greedy_search(model, SRC, BOS, EOS, 10, use_cache=use_cache)
    assert out == [greedy_reference(model, row, 10) for row in SRC]
    assert len({len(o) for o in out}) > 1  # sentences finished at different steps


def test_greedy_cached_equals_uncached_on_several_models():
    for seed in range(4):
        model = random_model(seed=seed, vocab=10, pre_norm=seed % 2 == 1)
        assert greedy_search(model, SRC, BOS, EOS, 12) == greedy_search(model, SRC, BOS, EOS, 12, use_cache=False)


def test_greedy_without_eos_gives_exactly_max_len_tokens():
    model = random_model(seed=8, vocab=8)
    out = greedy_search(model, SRC, BOS, None, 7)
    assert [len(o) for o in out] == [7] * 4
    assert all(PAD not in o for o in out)


def test_greedy_stops_when_every_sentence_has_finished():
    model = greedy_trap()
    assert greedy_search(model, torch.tensor([[A], [B]]), BOS, EOS, 50, use_cache=False) == [[A], [A]]
    assert model.calls == 2  # A, then eos: 2 steps, not 50
    model.calls = 0
    assert [len(o) for o in sample(model, torch.tensor([[A]] * 8), BOS, None, 5, use_cache=False)] == [5] * 8
    assert model.calls == 5  # eos_id=None: exactly max_len steps


def test_decoding_runs_in_eval_mode_and_restores_the_mode():
    model = random_model(seed=8, vocab=8, dropout=0.5).train()
    first = greedy_search(model, SRC, BOS, EOS, 10)
    assert model.training  # restored
    assert greedy_search(model, SRC, BOS, EOS, 10) == first  # no dropout while decoding
    beam_search(model, SRC, BOS, EOS, 5)
    assert model.training


# ---------------------------------------------------------------- beam search


def test_length_penalty_formula():
    for n in (1, 2, 7, 30):
        assert length_penalty(n) == pytest.approx(((5 + n) / 6) ** 0.6)
        assert length_penalty(n, alpha=0.0) == 1.0
    assert length_penalty(1, alpha=2.0) == 1.0
    assert_close(length_penalty(torch.tensor([1.0, 7.0]), 1.0), torch.tensor([1.0, 2.0]))


def test_beam_search_beats_greedy_where_greedy_is_provably_wrong():
    model, src = greedy_trap(), torch.tensor([[A]])
    assert greedy_search(model, src, BOS, EOS, 5, use_cache=False) == [[A]]  # P = 0.6 * 0.34
    hyps, scores = beam_search(model, src, BOS, EOS, 5, beam_size=2, n_best=2, use_cache=False)
    assert hyps == [[[B], [A]]]  # P(B eos) = 0.4 * 0.99
    lp = length_penalty(2)
    assert scores[0] == pytest.approx([math.log(0.4 * 0.99) / lp, math.log(0.6 * 0.34) / lp], abs=1e-6)
    assert beam_search(model, src, BOS, EOS, 5, beam_size=1, use_cache=False)[0] == [[[A]]]


def test_beam_search_stops_when_every_beam_has_finished():
    model = greedy_trap()
    beam_search(model, torch.tensor([[A], [B]]), BOS, EOS, 50, beam_size=2, use_cache=False)
    assert model.calls == 2  # both beams end with eos at step 2, not step 50


@pytest.mark.parametrize("seed,max_len,alpha", [(10, 4, 0.6), (5, 4, 0.0), (1, 3, 1.0)])
def test_wide_beam_equals_exhaustive_search(seed, max_len, alpha):
    model = random_model(seed=seed, vocab=6)
    src = torch.tensor([[4, 5, 5, 4], [5, 4, 0, 0]])
    exhaustive = [brute_force(model, row, max_len, alpha) for row in src]
    K = len(exhaustive[0])  # a beam that keeps every candidate
    for use_cache in (True, False):
        hyps, scores = beam_search(
            model, src, BOS, EOS, max_len, beam_size=K, alpha=alpha, n_best=5, use_cache=use_cache
        )
        for b in range(2):
            assert hyps[b] == [y for _, y in exhaustive[b][:5]]
            assert scores[b] == pytest.approx([s for s, _ in exhaustive[b][:5]], abs=1e-5)


@pytest.mark.parametrize("seed", range(4))
def test_beam_of_one_is_greedy(seed):
    model = random_model(seed=seed, vocab=10)
    hyps, _ = beam_search(model, SRC, BOS, EOS, 12, beam_size=1)
    assert [h[0] for h in hyps] == greedy_search(model, SRC, BOS, EOS, 12)


@pytest.mark.parametrize("seed", range(3))
def test_beam_cached_equals_uncached(seed):
    model = random_model(seed=seed, vocab=10, pre_norm=seed == 2)
    cached = beam_search(model, SRC, BOS, EOS, 10, beam_size=4, n_best=4)
    uncached = beam_search(model, SRC, BOS, EOS, 10, beam_size=4, n_best=4, use_cache=False)
    assert cached[0] == uncached[0]
    for a, b in zip(cached[1], uncached[1]):
        assert a == pytest.approx(b, abs=1e-5)


def test_beam_batched_equals_one_sentence_at_a_time():
    model = random_model(seed=3, vocab=10)
    hyps, scores = beam_search(model, SRC, BOS, EOS, 10, beam_size=3, n_best=3)
    for b, row in enumerate(SRC):
        alone = row[row != PAD][None]
        h, s = beam_search(model, alone, BOS, EOS, 10, beam_size=3, n_best=3)
        assert h[0] == hyps[b]
        assert s[0] == pytest.approx(scores[b], abs=1e-5)


def test_beam_scores_are_length_penalized_log_probabilities():
    model, max_len, alpha = random_model(seed=8, vocab=8), 9, 0.6
    hyps, scores = beam_search(model, SRC, BOS, EOS, max_len, beam_size=4, alpha=alpha, n_best=4)
    for b, row in enumerate(SRC):
        assert scores[b] == sorted(scores[b], reverse=True)
        assert len({tuple(h) for h in hyps[b]}) == len(hyps[b])  # distinct hypotheses
        for h, s in zip(hyps[b], scores[b]):
            y = h if len(h) == max_len else h + [EOS]  # stopped by max_len, or by eos
            assert s == pytest.approx(teacher_forced_logp(model, row, y) / ((5 + len(y)) / 6) ** alpha, abs=1e-5)


def test_beam_search_rejects_bad_n_best():
    with pytest.raises(ValueError):
        beam_search(random_model(), SRC, BOS, EOS, 5, beam_size=2, n_best=3)


@pytest.mark.parametrize("seed,max_len,alpha", [(10, 4, 0.6), (5, 4, 0.0)])
def test_list_beam_search_with_a_wide_beam_equals_exhaustive_search(seed, max_len, alpha):
    model = random_model(seed=seed, vocab=6)
    for row in torch.tensor([[4, 5, 5, 4], [5, 4, 0, 0]]):
        exhaustive = brute_force(model, row, max_len, alpha)
        ranked = beam_search_lists(model, row[row != PAD], BOS, EOS, max_len, beam_size=len(exhaustive), alpha=alpha)
        assert [tokens for tokens, _ in ranked[:5]] == [y for _, y in exhaustive[:5]]
        assert [s for _, s in ranked[:5]] == pytest.approx([s for s, _ in exhaustive[:5]], abs=1e-5)


@pytest.mark.parametrize("K", [1, 2, 4])
def test_list_beam_search_equals_the_batched_one(K):
    "Two independent implementations (lists, one sentence; tensors, a batch) agree, with a ban too."
    model = random_model(seed=3, vocab=10, dropout=0.3).train()
    found = beam_search(model, SRC, BOS, EOS, 10, beam_size=K, n_best=K)[0]
    chosen = next(t for nbest in found for h in nbest for t in h)  # a token the search emits
    for ban in ((), (UNK, chosen)):
        hyps, scores = beam_search(model, SRC, BOS, EOS, 10, beam_size=K, n_best=K, ban=ban)
        for b, row in enumerate(SRC):
            ranked = beam_search_lists(model, row[row != PAD], BOS, EOS, 10, beam_size=K, ban=ban)
            assert [tokens for tokens, _ in ranked] == hyps[b]
            assert [s for _, s in ranked] == pytest.approx(scores[b], abs=1e-5)
            if ban:
                assert not set(ban) & {t for tokens, _ in ranked for t in tokens}
    assert model.training  # decoded without dropout, mode restored


def test_list_beam_search_trace_keeps_the_k_best_candidates():
    model, K, steps = random_model(seed=8, vocab=8), 3, []
    ranked = beam_search_lists(model, SRC[0], BOS, EOS, 6, beam_size=K, trace=steps)
    assert 1 <= len(steps) <= 6
    for t, step in enumerate(steps):
        kept = [sc for _, sc, k in step if k]
        dropped = [sc for _, sc, k in step if not k]
        assert len(kept) == K and min(kept) >= max(dropped)
        for (tokens, logp), sc, _ in step:  # the score is log P / lp of the tokens
            assert sc == pytest.approx(logp / length_penalty(len(tokens)), abs=1e-9)
            assert len(tokens) <= t + 1 and PAD not in tokens
    last = sorted(((tokens, sc) for (tokens, _), sc, k in steps[-1] if k), key=lambda x: -x[1])
    assert [s for _, s in ranked] == pytest.approx([s for _, s in last])


# ---------------------------------------------------------------- sampling


def nucleus_reference(probs, p):
    "Indices of the smallest set of most likely tokens with total probability >= p."
    keep, mass = [], 0.0
    for i in probs.argsort(descending=True).tolist():
        if mass >= p:
            break
        keep.append(i)
        mass += probs[i].item()
    return set(keep)


def test_sampling_probs_temperature_top_k_top_p():
    torch.manual_seed(0)
    logits = torch.randn(40, 16) * 2
    for T in (0.3, 1.0, 2.5):
        assert_close(sampling_probs(logits, temperature=T), torch.softmax(logits / T, -1))
    k = 4
    probs = sampling_probs(logits, top_k=k)
    top = logits.topk(k).indices
    for row, idx, z in zip(probs, top, logits):
        assert set(row.nonzero().flatten().tolist()) == set(idx.tolist())
        assert_close(row[idx], torch.softmax(z[idx], -1))
    for p in (0.2, 0.5, 0.9, 0.99):
        probs = sampling_probs(logits, top_p=p)
        for row, full in zip(probs, logits.softmax(-1)):
            keep = sorted(nucleus_reference(full, p))
            assert set(row.nonzero().flatten().tolist()) == set(keep)
            assert full[keep].sum() >= p - 1e-6
            assert_close(row[keep], full[keep] / full[keep].sum())
    # the order: temperature, then top-k, then top-p on what top-k left
    both = sampling_probs(logits, temperature=0.7, top_k=6, top_p=0.8)
    for row, z in zip(both, logits):
        idx = (z / 0.7).topk(6).indices
        after_k = torch.zeros(16)
        after_k[idx] = torch.softmax(z[idx] / 0.7, -1)
        keep = sorted(nucleus_reference(after_k, 0.8))
        expected = torch.zeros(16)
        expected[keep] = after_k[keep] / after_k[keep].sum()
        assert_close(row, expected)


def test_temperature_to_zero_is_greedy():
    torch.manual_seed(1)
    logits = torch.randn(40, 16)
    assert torch.equal(sampling_probs(logits, temperature=0), F.one_hot(logits.argmax(-1), 16).float())
    top_mass = [sampling_probs(logits, temperature=T).max(-1).values for T in (4.0, 1.0, 0.3, 0.1, 1e-4)]
    for hotter, colder in zip(top_mass, top_mass[1:]):
        assert (colder >= hotter - 1e-6).all()
    assert (top_mass[-1] > 0.99).all()
    model = random_model(seed=8, vocab=8)
    greedy = greedy_search(model, SRC, BOS, EOS, 10)
    g = torch.Generator().manual_seed(0)
    assert sample(model, SRC, BOS, EOS, 10, temperature=1e-4, generator=g) == greedy
    assert sample(model, SRC, BOS, EOS, 10, temperature=0, generator=g) == greedy


def draws(model, n=300, seed=0, max_len=6, **kw):
    src = SRC[:1].repeat(n, 1)
    return sample(model, src, BOS, EOS, max_len, generator=torch.Generator().manual_seed(seed), **kw)


def next_token_probs(model, prefixes):
    "The model's next-token distribution (pad excluded) after each prefix of the first source."
    memory, src_mask = encode(model, SRC[:1])
    out = []
    with torch.no_grad():
        for ys in prefixes:
            logits = generate_step(model, torch.tensor([[BOS] + ys]), memory, src_mask)[0]
            logits[PAD] = -math.inf
            out.append(logits)
    return out


def emitted(outputs, first=6):
    "(prefix, token) pairs of the first tokens of each sampled output (<eos> included)."
    pairs = [(y[:t], y[t]) for y in (out + [EOS] for out in outputs) for t in range(min(len(y), first))]
    return [p for p, _ in pairs], [t for _, t in pairs]


def test_top_k_never_emits_a_token_outside_the_k_most_likely():
    model = random_model(seed=4, vocab=10)
    outputs = draws(model, temperature=2.0, top_k=3)  # a high temperature to spread the samples
    prefixes, tokens = emitted(outputs)
    for logits, token in zip(next_token_probs(model, prefixes), tokens):
        assert token in logits.topk(3).indices.tolist()
    assert len({tuple(o) for o in outputs}) > 5  # the samples did vary


def test_top_p_only_emits_tokens_from_the_nucleus():
    model = random_model(seed=4, vocab=10)
    outputs = draws(model, temperature=1.5, top_p=0.6)
    prefixes, tokens = emitted(outputs)
    for logits, token in zip(next_token_probs(model, prefixes), tokens):
        assert token in nucleus_reference(torch.softmax(logits / 1.5, -1), 0.6)


def test_sampled_frequencies_match_the_distribution():
    model = random_model(seed=4, vocab=10)
    n, T = 6000, 1.3
    first = [o[0] if o else EOS for o in draws(model, n=n, max_len=1, temperature=T, seed=3)]
    expected = torch.softmax(next_token_probs(model, [[]])[0] / T, -1)
    observed = torch.bincount(torch.tensor(first), minlength=10).float() / n
    assert (observed - expected).abs().max() < 0.03  # about 4 standard errors at n = 6000


def test_same_seed_same_samples():
    model = random_model(seed=4, vocab=10)
    assert draws(model, n=50, seed=7) == draws(model, n=50, seed=7)
    assert draws(model, n=50, seed=7) != draws(model, n=50, seed=8)
    cached = draws(model, n=50, seed=7, top_k=5)
    assert cached == sample(
        model,
        SRC[:1].repeat(50, 1),
        BOS,
        EOS,
        6,
        top_k=5,
        generator=torch.Generator().manual_seed(7),
        use_cache=False,
    )


# ---------------------------------------------------------------- banned tokens


def masked(model, banned):
    "The model with the logits of `banned` ids set to -inf inside decode: an independent route to a ban."
    decode = model.decode

    def decode_without(*args, **kwargs):
        logits = decode(*args, **kwargs).clone()
        logits[..., banned] = -math.inf
        return logits

    model.decode = decode_without
    return model


@pytest.mark.parametrize("seed,alpha", [(10, 0.6), (3, 0.0)])
def test_wide_beam_with_a_ban_equals_exhaustive_search_over_outputs_without_it(seed, alpha):
    model, banned = random_model(seed=seed, vocab=6), [4]
    src = torch.tensor([[4, 5, 5, 4], [5, 4, 0, 0]])
    for b, row in enumerate(src):
        allowed = [(s, y) for s, y in brute_force(model, row, 4, alpha) if 4 not in y]
        hyps, scores = beam_search(model, src, BOS, EOS, 4, beam_size=60, alpha=alpha, n_best=5, ban=banned)
        assert hyps[b] == [y for _, y in allowed[:5]]
        assert scores[b] == pytest.approx([s for s, _ in allowed[:5]], abs=1e-5)


@pytest.mark.parametrize("seed", range(3))
def test_every_decoder_with_a_ban_equals_the_model_with_those_logits_removed(seed):
    banned = [UNK, 5, 7]
    model, reference = random_model(seed=seed, vocab=10), masked(random_model(seed=seed, vocab=10), banned)
    greedy = greedy_search(model, SRC, BOS, EOS, 12, ban=banned)
    assert greedy == greedy_search(reference, SRC, BOS, EOS, 12, use_cache=False)
    assert greedy != greedy_search(model, SRC, BOS, EOS, 12)  # the ban changed something
    # (beam search is checked against exhaustive search above: it scores with the model's own log-probabilities,
    # not renormalized over the allowed tokens as this reference would)
    hyps, _ = beam_search(model, SRC, BOS, EOS, 12, beam_size=3, n_best=3, ban=banned)
    assert all(not set(y) & set(banned) for nbest in hyps for y in nbest)
    drawn = sample(model, SRC, BOS, EOS, 12, generator=torch.Generator().manual_seed(seed), ban=banned)
    assert drawn == sample(reference, SRC, BOS, EOS, 12, generator=torch.Generator().manual_seed(seed), use_cache=False)
    for out in greedy + drawn:
        assert not set(out) & set(banned)


# ---------------------------------------------------------------- finished sentences leave the batch (chapter 16)
def rows_decoded(model, search):
    "Run `search()` and count the rows the decoder was given, step by step."
    rows, decode = [], model.decode
    model.decode = lambda tgt, *a, **kw: rows.append(tgt.size(0)) or decode(tgt, *a, **kw)
    try:
        return search(), rows
    finally:
        del model.decode


def batched_greedy(model, src, eos_id, max_len, **kw):
    return [h[0] for h in batched_search(model, src, BOS, eos_id, max_len, beam_size=1, **kw)[0]]


@pytest.mark.parametrize("seed", range(4))
def test_a_batched_beam_of_one_is_the_unbatched_greedy_reference(seed):
    model = random_model(seed=seed, vocab=8, pre_norm=seed % 2 == 1)
    out, rows = rows_decoded(model, lambda: batched_greedy(model, SRC, EOS, 10))
    assert out == [greedy_reference(model, row, 10) for row in SRC]
    assert out == greedy_search(model, SRC, BOS, EOS, 10)
    steps = max(len(o) + (len(o) < 10) for o in out)  # the longest sentence's steps, eos included
    assert len(rows) == steps and rows[-1] == sum(len(o) + (len(o) < 10) == steps for o in out)
    assert rows == sorted(rows, reverse=True) and rows[0] == len(SRC)  # the batch only shrinks


def test_a_batched_beam_of_one_with_a_ban_and_without_eos():
    model = random_model(seed=3, vocab=10)
    assert batched_greedy(model, SRC, EOS, 12, ban=[UNK, 5]) == greedy_search(model, SRC, BOS, EOS, 12, ban=[UNK, 5])
    assert all(len(o) == 7 for o in batched_greedy(model, SRC, None, 7))


@pytest.mark.parametrize("seed", range(4))
def test_batched_search_equals_beam_search(seed):
    model = random_model(seed=seed, vocab=10, pre_norm=seed % 2 == 1)
    for K, alpha, ban in ((1, 0.6, ()), (3, 0.6, (5,)), (4, 1.5, ())):
        hyps, scores = beam_search(model, SRC, BOS, EOS, 10, beam_size=K, alpha=alpha, n_best=K, ban=ban)
        (fast_hyps, fast_scores), rows = rows_decoded(
            model,
            lambda: batched_search(model, SRC, BOS, EOS, 10, beam_size=K, alpha=alpha, n_best=K, ban=ban),
        )
        assert fast_hyps == hyps
        for a, b in zip(fast_scores, scores):
            assert a == pytest.approx(b, abs=1e-5)
        assert rows[0] == len(SRC) * K and rows == sorted(rows, reverse=True) and set(r % K for r in rows) == {0}


@pytest.mark.parametrize("seed,alpha", [(10, 0.6), (3, 0.0)])
def test_wide_batched_search_equals_exhaustive_search(seed, alpha):
    model = random_model(seed=seed, vocab=6)
    src = torch.tensor([[4, 5, 5, 4], [5, 4, 0, 0]])
    hyps, scores = batched_search(model, src, BOS, EOS, 4, beam_size=60, alpha=alpha, n_best=5)
    for b, row in enumerate(src):
        best = brute_force(model, row, 4, alpha)[:5]
        assert hyps[b] == [y for _, y in best]
        assert scores[b] == pytest.approx([s for s, _ in best], abs=1e-5)


def test_batched_search_checks_n_best_and_restores_the_mode():
    model = random_model(seed=8, vocab=8, dropout=0.5).train()
    with pytest.raises(ValueError):
        batched_search(model, SRC, BOS, EOS, 5, beam_size=2, n_best=3)
    first = batched_search(model, SRC, BOS, EOS, 10, beam_size=2)
    assert model.training and batched_search(model, SRC, BOS, EOS, 10, beam_size=2) == first  # no dropout


def test_keep_takes_the_rows_of_every_cached_tensor():
    model = random_model(seed=1, vocab=10)
    memory, src_mask = encode(model, SRC)
    cache = KVCache(model, memory, repeats=2)
    ys = torch.tensor([[BOS, 4, 5]] * 8)
    for t in range(1, 4):
        generate_step(model, ys[:, :t], memory.repeat_interleave(2, 0), src_mask.repeat_interleave(2, 0), cache)
    before = [tuple(x.clone() for x in kv) for kv in cache.cross + cache.self_kv]
    rows = torch.tensor([2, 3, 6, 7])  # sentences 1 and 3, both beams
    cache.keep(rows)
    assert len(cache) == 3
    for (k, v), (k0, v0) in zip(cache.cross + cache.self_kv, before):
        assert torch.equal(k, k0[rows]) and torch.equal(v, v0[rows])
