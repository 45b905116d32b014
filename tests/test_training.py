"""Tests for transformer.training: batches, the sampler, label smoothing, the schedule, checkpoints, the loop,
and that a resumed run ends exactly where an uninterrupted one does."""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.testing import assert_close

import transformer.loop as loop
import transformer.machine as machine
from torch.optim.optimizer import register_optimizer_step_pre_hook
from transformer.loop import TrainConfig, train, update, update_seconds
from transformer.machine import (CheckpointError, choose_precision, load_checkpoint, matmul_gflops, plan_updates,
                                 save_checkpoint)
from transformer.model import Transformer, TransformerConfig
from transformer.training import (LabelSmoothingLoss, TokenBatchSampler, evaluate, learning_rate, linear_decay_lr,
                                  make_batch, make_optimizer, noam_lr, reverse_task, smoothed_targets, toy_splits)

ROOT = Path(__file__).resolve().parents[1]
PAD, UNK, BOS, EOS = 0, 1, 2, 3
VOCAB = 12


# ------------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True, scope="module")
def one_thread():
    "Tiny models run fastest on one thread, and do not slow to a crawl when other processes share the cores."
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def tiny_model(seed=0, dropout=0.1, d_model=16):
    torch.manual_seed(seed)
    return Transformer(TransformerConfig(VOCAB, VOCAB, d_model=d_model, n_layers=1, h=2, d_ff=32, dropout=dropout,
                                         max_len=32))


DATA = reverse_task(120, vocab_size=VOCAB, min_len=1, max_len=6, seed=0)
VALID = reverse_task(20, vocab_size=VOCAB, min_len=1, max_len=6, seed=1)


def config(out_dir, **kw):
    args = dict(max_tokens=48, max_epochs=50, warmup=5, eval_every=None, ckpt_every=None, log_every=2, precision="fp32",
                out_dir=str(out_dir), progress=False, device="cpu")
    return TrainConfig(**{**args, **kw})


def batches_per_epoch(max_tokens=48, data=DATA):
    return len(TokenBatchSampler([len(s) for s, _ in data], [len(t) + 1 for _, t in data], max_tokens))


def params(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def assert_same_params(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), f"{k} differs by {(a[k] - b[k]).abs().max().item()}"


def train_records(history):
    "The training metrics that must not depend on interruptions (times excluded)."
    return [(r["step"], r["epoch"], r["lr"], r["train_loss"]) for r in history if "train_loss" in r]


def scramble_rng():
    torch.manual_seed(987654)
    random.seed(987654)


def random_lengths(n=300, seed=0, high=40):
    rng = random.Random(seed)
    return [rng.randint(1, high) for _ in range(n)], [rng.randint(1, high) for _ in range(n)]


# ------------------------------------------------------------------------------------------ the toy task
def test_reverse_task():
    pairs = reverse_task(500, vocab_size=14, min_len=2, max_len=8, seed=0)
    assert pairs == reverse_task(500, vocab_size=14, min_len=2, max_len=8, seed=0)
    assert pairs != reverse_task(500, vocab_size=14, min_len=2, max_len=8, seed=1)
    assert {len(t) for _, t in pairs} == set(range(2, 9))
    for src, tgt in pairs:
        assert src[-1] == EOS and EOS not in src[:-1] and tgt == list(reversed(src[:-1]))
        assert all(4 <= t < 14 for t in tgt) and len(set(tgt)) == len(tgt)
    copies = reverse_task(50, seed=3, reverse=False)
    assert all(t == s[:-1] for s, t in copies)
    repeats = reverse_task(500, vocab_size=6, max_len=8, seed=0, distinct=False)
    assert any(len(set(t)) < len(t) for _, t in repeats) and all(4 <= x < 6 for _, t in repeats for x in t)
    with pytest.raises(ValueError):
        reverse_task(1, vocab_size=8, max_len=5)           # 4 symbols cannot make 5 distinct ones


# ------------------------------------------------------------------------------------------ batches
def test_toy_splits_hold_out_unseen_sources_once_each():
    train, valid, test = toy_splits()
    assert (len(train), len(valid), len(test)) == (10_000, 500, 500)
    assert train == reverse_task(10_000, seed=0)                      # the chapter's training pairs
    seen = {tuple(s) for s, _ in train}
    held = [tuple(s) for s, _ in valid + test]
    assert not seen.intersection(held) and len(set(held)) == len(held)
    assert all(t == s[-2::-1] for s, t in valid + test)
    assert toy_splits() == (train, valid, test)                        # the same split every time
    small = toy_splits(n_train=50, n_valid=3, n_test=4, vocab_size=10, max_len=4)
    assert [len(x) for x in small] == [50, 3, 4] and all(len(t) <= 4 for _, t in small[0])
    with pytest.raises(ValueError, match="unseen sources"):
        toy_splits(n_train=2000, n_valid=400, n_test=400, vocab_size=7, max_len=2)   # only 6 * 5 + 6 exist


def test_make_batch_shift_padding_and_masks():
    examples = [([5, 6, 7, EOS], [7, 6, 5]), ([4, EOS], [4]), ([9, 8, 7, 6, 5, EOS], [5, 6, 7, 8, 9])]
    b = make_batch(examples, PAD, BOS, EOS)
    assert b.src.tolist() == [[5, 6, 7, 3, 0, 0], [4, 3, 0, 0, 0, 0], [9, 8, 7, 6, 5, 3]]
    assert b.tgt_in.tolist() == [[2, 7, 6, 5, 0, 0], [2, 4, 0, 0, 0, 0], [2, 5, 6, 7, 8, 9]]
    assert b.tgt_out.tolist() == [[7, 6, 5, 3, 0, 0], [4, 3, 0, 0, 0, 0], [5, 6, 7, 8, 9, 3]]
    assert b.n_tokens == 4 + 2 + 6
    assert b.src_mask.shape == (3, 1, 1, 6) and b.tgt_mask.shape == (3, 1, 6, 6)
    for r, (s, t) in enumerate(examples):
        assert b.src_mask[r, 0, 0].tolist() == [j < len(s) for j in range(6)]
        expected = [[j <= i and j <= len(t) for j in range(6)] for i in range(6)]   # causal, key j not padding
        assert b.tgt_mask[r, 0].tolist() == expected
    assert b.src.dtype == torch.long


def test_make_batch_random_examples():
    examples = reverse_task(30, vocab_size=20, min_len=1, max_len=12, seed=4)
    b = make_batch(examples, PAD, BOS, EOS)
    real = b.tgt_out != PAD
    assert b.n_tokens == int(real.sum())
    assert (b.tgt_in[:, 0] == BOS).all()
    # the shift: input position i + 1 holds what output position i had to predict (wherever the input is real)
    shifted = b.tgt_in[:, 1:] != PAD
    assert torch.equal(b.tgt_in[:, 1:][shifted], b.tgt_out[:, :-1][shifted])
    assert torch.equal(shifted.sum(1) + 1, real.sum(1))         # the output has one more real token: <eos>
    last = real.sum(1) - 1                                      # position of <eos> in each row
    assert (b.tgt_out[torch.arange(30), last] == EOS).all()


# ------------------------------------------------------------------------------------------ the sampler
def epoch(sampler):
    return [list(b) for b in sampler]


@pytest.mark.parametrize("shuffle", [True, False])
def test_sampler_each_index_once_per_epoch_and_budget(shuffle):
    src, tgt = random_lengths()
    s = TokenBatchSampler(src, tgt, max_tokens=200, shuffle=shuffle, seed=3)
    for _ in range(3):
        batches = epoch(s)
        assert sorted(i for b in batches for i in b) == list(range(len(src)))
        for b in batches:
            assert len(b) * max(max(src[i], tgt[i]) for i in b) <= 200


def test_sampler_overlong_example_gets_its_own_batch():
    src, tgt = [3, 4, 50, 5], [3, 60, 4, 5]
    batches = TokenBatchSampler(src, tgt, max_tokens=20, shuffle=False).all_batches()
    assert [2] in batches and [1] in batches
    assert sorted(i for b in batches for i in b) == [0, 1, 2, 3]


def test_sampler_groups_similar_lengths():
    src, tgt = random_lengths(seed=1)
    batches = TokenBatchSampler(src, tgt, max_tokens=300, seed=0).all_batches()
    key = lambda i: (src[i], tgt[i])
    ranges = sorted((min(map(key, b)), max(map(key, b))) for b in batches)
    for (_, hi), (lo, _) in zip(ranges, ranges[1:]):
        assert hi <= lo                                          # batches are contiguous runs of the length order


def test_sampler_deterministic_per_seed_and_different_across_epochs():
    src, tgt = random_lengths()
    a, b, c = (TokenBatchSampler(src, tgt, 200, seed=s) for s in (0, 0, 1))
    first = epoch(a)
    assert first == epoch(b) and first != epoch(c)
    assert a.epoch == 1 and epoch(a) != first
    s1 = TokenBatchSampler(src, tgt, 200, seed=0); s1.set_epoch(1)
    s2 = TokenBatchSampler(src, tgt, 200, seed=0); epoch(s2)
    assert epoch(s1) == epoch(s2)                                # epoch 1 is the same however we get there
    assert len({len(TokenBatchSampler(src, tgt, 200, seed=0)) for _ in range(2)}) == 1


def test_sampler_resumes_mid_epoch():
    src, tgt = random_lengths()
    reference = epoch(TokenBatchSampler(src, tgt, 200, seed=5))
    s = TokenBatchSampler(src, tgt, 200, seed=5)
    it = iter(s)
    seen = [next(it) for _ in range(4)]
    state = s.state_dict()
    assert state["epoch"] == 0 and state["position"] == 4
    resumed = TokenBatchSampler(src, tgt, 200, seed=5)
    resumed.load_state_dict(state)
    rest = epoch(resumed)
    assert seen + rest == reference
    assert resumed.state_dict()["epoch"] == 1 and resumed.state_dict()["position"] == 0
    # the epoch after the resumed one equals the uninterrupted sampler's second epoch
    uninterrupted = TokenBatchSampler(src, tgt, 200, seed=5)
    epoch(uninterrupted)
    assert epoch(resumed) == epoch(uninterrupted)


@pytest.mark.parametrize("world", [2, 3])
def test_sampler_ranks_partition_the_batches(world):
    src, tgt = random_lengths(n=301)
    ranks = [TokenBatchSampler(src, tgt, 200, seed=2, rank=r, world_size=world) for r in range(world)]
    everything = ranks[0].all_batches()
    assert len(everything) % world == 0
    assert len({len(r) for r in ranks}) == 1                    # the same number of steps on every rank
    per_rank = [epoch(r) for r in ranks]
    interleaved = [b for step in zip(*per_rank) for b in step]
    assert interleaved == everything
    plain = TokenBatchSampler(src, tgt, 200, seed=2).all_batches()
    assert everything[:len(plain)] == plain and all(b in plain for b in everything[len(plain):])
    assert sorted({i for b in interleaved for i in b}) == list(range(len(src)))


def test_sampler_keeps_its_place_when_the_number_of_ranks_changes():
    src, tgt = random_lengths()
    one = TokenBatchSampler(src, tgt, 200, seed=0)
    it = iter(one)
    for _ in range(6): next(it)
    two = TokenBatchSampler(src, tgt, 200, seed=0, rank=1, world_size=2)
    two.load_state_dict(one.state_dict())
    assert two.position == 3                                    # 6 batches handed out = 3 rounds of 2 ranks


# ------------------------------------------------------------------------------------------ label smoothing
def brute_force_q(target, vocab, eps, pad):
    q = torch.zeros(*target.shape, vocab)
    for idx in range(target.numel()):
        pos = divmod(idx, target.shape[1])
        y = target[pos].item()
        if y == pad: continue
        for v in range(vocab):
            q[pos][v] = 0.0 if v == pad else (1 - eps if v == y else eps / (vocab - 2))
    return q


@pytest.mark.parametrize("eps,pad", [(0.1, 0), (0.3, 2), (0.0, 0)])
def test_smoothed_targets_brute_force(eps, pad):
    g = torch.Generator().manual_seed(0)
    target = torch.randint(0, 9, (4, 6), generator=g)
    target[0, 4:] = pad
    q = smoothed_targets(target, 9, eps, pad)
    assert_close(q, brute_force_q(target, 9, eps, pad))
    real = target != pad
    assert (q[..., pad] == 0).all()                             # <pad> never gets probability
    assert_close(q[real].sum(-1), torch.ones(int(real.sum())))
    assert (q[~real] == 0).all()


@pytest.mark.parametrize("eps", [0.1, 0.25])
def test_label_smoothing_loss_against_explicit_cross_entropy_and_kl(eps):
    torch.manual_seed(0)
    V = 11
    logits = 3 * torch.randn(4, 7, V)
    target = torch.randint(1, V, (4, 7))
    target[1, 3:] = PAD
    target[3, :] = PAD
    target[3, 0] = 5
    q = brute_force_q(target, V, eps, PAD)
    logp = logits.log_softmax(-1)
    real = target != PAD
    explicit = -(q * logp).sum(-1)[real].sum() / real.sum()
    loss = LabelSmoothingLoss(eps, PAD)(logits, target)
    assert_close(loss, explicit)
    entropy = -(q[real] * q[real].clamp(min=1e-30).log()).sum()
    kl = F.kl_div(logp[real], q[real], reduction="sum")           # PyTorch's KL(q || p)
    assert_close(loss, (kl + entropy) / real.sum())


def test_label_smoothing_zero_is_cross_entropy_with_ignore_index():
    torch.manual_seed(1)
    logits = torch.randn(3, 5, 13)
    target = torch.randint(1, 13, (3, 5))
    target[0, 2:] = PAD
    expected = F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=PAD)
    assert_close(LabelSmoothingLoss(0.0, PAD)(logits, target), expected)


def test_label_smoothing_gradient_is_p_minus_q_and_ignores_padding():
    torch.manual_seed(2)
    V, eps = 9, 0.1
    logits = torch.randn(2, 6, V, requires_grad=True)
    target = torch.randint(1, V, (2, 6))
    target[1, 2:] = PAD
    LabelSmoothingLoss(eps, PAD)(logits, target).backward()
    real = target != PAD
    p = logits.detach().softmax(-1)
    q = brute_force_q(target, V, eps, PAD)
    expected = (p - q) * real.unsqueeze(-1) / real.sum()          # d(mean cross-entropy)/d logits
    assert_close(logits.grad, expected)
    assert (logits.grad[~real] == 0).all()


def test_label_smoothing_loss_accepts_bf16_logits():
    torch.manual_seed(3)
    logits = torch.randn(2, 4, 10)
    target = torch.randint(1, 10, (2, 4))
    loss = LabelSmoothingLoss()(logits.bfloat16(), target)
    assert loss.dtype == torch.float32
    assert_close(loss, LabelSmoothingLoss()(logits.bfloat16().float(), target))


# ------------------------------------------------------------------------------------------ the schedule
def test_noam_lr_closed_formula_and_peak():
    for d_model, warmup in [(512, 4000), (64, 100), (1024, 4000)]:
        for s in [1, 2, warmup // 2, warmup - 1, warmup, warmup + 1, 10 * warmup]:
            expected = d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)
            assert math.isclose(noam_lr(s, d_model, warmup), expected, rel_tol=1e-12)
        rates = [noam_lr(s, d_model, warmup) for s in range(1, 3 * warmup)]
        assert rates.index(max(rates)) + 1 == warmup
        assert math.isclose(max(rates), (d_model * warmup) ** -0.5, rel_tol=1e-12)
        assert all(a < b for a, b in zip(rates[:warmup - 1], rates[1:warmup]))       # linear warmup
        assert all(a > b for a, b in zip(rates[warmup - 1:], rates[warmup:]))        # then decay
    assert math.isclose(noam_lr(10, 64, 100, factor=0.5), 0.5 * noam_lr(10, 64, 100))
    assert math.isclose(noam_lr(4000, 512, 4000), 512 ** -0.5 * 4000 ** -0.5)
    assert noam_lr(0, 512, 4000) == noam_lr(1, 512, 4000)


def test_update_is_one_adam_step_at_the_rate_given():
    "`update` against a hand-written step: loss, backward, plain Adam with the paper's settings at rate lr."
    model, reference = tiny_model(dropout=0.0), tiny_model(dropout=0.0)
    b, criterion = make_batch(DATA[:8], PAD, BOS, EOS), LabelSmoothingLoss(0.1, PAD)
    optimizer = make_optimizer(model)
    assert optimizer.defaults["betas"] == (0.9, 0.98) and optimizer.defaults["eps"] == 1e-9
    ref_opt = torch.optim.Adam(reference.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    for lr in (1e-3, 5e-3, 2e-3):
        loss_sum = update(model, optimizer, criterion, [b], lr)
        loss = criterion(reference(b.src, b.tgt_in, b.src_mask, b.tgt_mask), b.tgt_out)
        loss.backward()
        for group in ref_opt.param_groups:
            group["lr"] = lr
        ref_opt.step(); ref_opt.zero_grad()
        assert loss_sum.item() == pytest.approx(loss.item() * b.n_tokens, rel=1e-6)
        assert_same_params(params(model), params(reference))
        assert all(p.grad is None for p in model.parameters())          # cleared for the next update


def test_linear_decay_closed_formula():
    d_model, warmup, total = 64, 10, 50
    peak = (d_model * warmup) ** -0.5
    for s in range(1, warmup + 1):                          # the warmup is Noam's
        assert math.isclose(linear_decay_lr(s, d_model, warmup, total), peak * s / warmup, rel_tol=1e-12)
    for s in range(warmup, total + 1):                      # then a line from the peak to 0 at total + 1
        expected = peak * (total + 1 - s) / (total + 1 - warmup)
        assert math.isclose(linear_decay_lr(s, d_model, warmup, total), expected, rel_tol=1e-12)
    assert linear_decay_lr(total + 1, d_model, warmup, total) == 0 == linear_decay_lr(10 * total, d_model, warmup, total)
    assert linear_decay_lr(total, d_model, warmup, total) > 0
    assert math.isclose(linear_decay_lr(30, d_model, warmup, total, factor=0.3), 0.3 * linear_decay_lr(30, d_model, warmup, total))
    with pytest.raises(ValueError, match="decay_steps"):
        learning_rate(1, d_model, warmup, decay_steps=warmup)


def test_train_follows_the_linear_decay(tmp_path):
    seen = []
    hook = register_optimizer_step_pre_hook(lambda opt, args, kwargs: seen.append(opt.param_groups[0]["lr"]))
    try:
        train(tiny_model(), DATA, [], config(tmp_path, max_steps=9, warmup=3, lr_factor=2.0, decay_steps=9, log_every=1),
              PAD, BOS, EOS)
    finally:
        hook.remove()
    peak = 2.0 * (16 * 3) ** -0.5
    expected = [peak * s / 3 for s in (1, 2, 3)] + [peak * (10 - s) / 7 for s in range(4, 10)]
    assert seen == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------------------------ checkpoints
def test_checkpoint_round_trip(tmp_path):
    state = {"step": 7, "w": torch.randn(3, 3), "nested": {"list": [1, 2.5, "x", None], "t": (1, 2)}}
    save_checkpoint(tmp_path / "sub" / "ck.pt", state)
    loaded = load_checkpoint(tmp_path / "sub" / "ck.pt")
    assert loaded["step"] == 7 and torch.equal(loaded["w"], state["w"]) and loaded["nested"] == state["nested"]
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["ck.pt"]


def test_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "ck.pt"
    save_checkpoint(path, {"step": 1, "w": torch.ones(4)})
    real_save = torch.save

    def dies_halfway(obj, f, *args, **kw):
        f.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", dies_halfway)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, {"step": 2, "w": torch.zeros(4)})
    monkeypatch.setattr(torch, "save", real_save)
    old = load_checkpoint(path)
    assert old["step"] == 1 and torch.equal(old["w"], torch.ones(4))
    assert [p.name for p in tmp_path.iterdir()] == ["ck.pt"]     # no temporary file left behind


def test_missing_and_corrupt_checkpoints(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint at .*nothing.pt"):
        load_checkpoint(tmp_path / "nothing.pt")
    (tmp_path / "garbage.pt").write_bytes(b"\x00\x01 certainly not a checkpoint")
    with pytest.raises(CheckpointError, match="garbage.pt is corrupt or unreadable"):
        load_checkpoint(tmp_path / "garbage.pt")
    save_checkpoint(tmp_path / "good.pt", {"w": torch.randn(100, 100)})
    data = (tmp_path / "good.pt").read_bytes()
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated.pt"):
        load_checkpoint(tmp_path / "truncated.pt")
    torch.save([1, 2, 3], tmp_path / "list.pt")
    with pytest.raises(CheckpointError, match="not a dict"):
        load_checkpoint(tmp_path / "list.pt")
    torch.save({"obj": nn.Linear(2, 2)}, tmp_path / "pickled_module.pt")   # needs full unpickling
    with pytest.raises(CheckpointError, match="pickled_module.pt"):
        load_checkpoint(tmp_path / "pickled_module.pt")
    (tmp_path / "a_directory.pt").mkdir()
    with pytest.raises(CheckpointError):
        load_checkpoint(tmp_path / "a_directory.pt")


def test_resume_without_or_with_a_foreign_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint"):
        train(tiny_model(), DATA, [], config(tmp_path / "empty", max_steps=2), PAD, BOS, EOS, resume=True)
    train(tiny_model(), DATA, [], config(tmp_path / "run", max_steps=2), PAD, BOS, EOS)
    with pytest.raises(CheckpointError, match="does not fit"):
        train(tiny_model(d_model=8), DATA, [], config(tmp_path / "run", max_steps=4), PAD, BOS, EOS, resume=True)
    save_checkpoint(tmp_path / "other" / "checkpoint.pt", {"weights": torch.ones(2)})
    with pytest.raises(CheckpointError, match="does not fit"):
        train(tiny_model(), DATA, [], config(tmp_path / "other", max_steps=4), PAD, BOS, EOS, resume=True)


# ------------------------------------------------------------------------------------------ the loop
def test_checkpoint_contents_and_metrics_file(tmp_path):
    model = tiny_model()
    cfg = config(tmp_path, max_steps=6, eval_every=3, ckpt_every=3, log_every=2)
    history = train(model, DATA, VALID, cfg, PAD, BOS, EOS, extra_state={"vocab": ["<pad>", "a"]})
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    for key in ["model", "optimizer", "sampler", "ranks", "step", "history", "train_config",
                "model_config", "extra", "elapsed_s", "precision", "plan"]:
        assert key in state, key
    assert state["step"] == 6 and state["extra"] == {"vocab": ["<pad>", "a"]}
    assert state["train_config"]["max_steps"] == 6 and state["model_config"]["d_model"] == 16
    assert len(state["ranks"]) == 1 and set(state["ranks"][0]) >= {"torch", "python", "cuda"}
    assert_same_params(state["model"], params(model))
    lines = [json.loads(l) for l in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert lines == history
    assert [r["step"] for r in history if "valid_loss" in r] == [3, 6]
    assert [r["step"] for r in history if "train_loss" in r] == [2, 4, 6]


def test_learning_rate_of_every_update_in_train(tmp_path):
    seen = []
    hook = register_optimizer_step_pre_hook(
        lambda opt, args, kwargs: seen.append(opt.param_groups[0]["lr"]))
    try:
        history = train(tiny_model(), DATA, [], config(tmp_path, max_steps=9, warmup=4, lr_factor=2.0, log_every=1),
                        PAD, BOS, EOS)
    finally:
        hook.remove()
    expected = [noam_lr(s, 16, 4, 2.0) for s in range(1, 10)]
    assert seen == pytest.approx(expected, rel=1e-12)
    assert [r["lr"] for r in history if "lr" in r] == pytest.approx(expected, rel=1e-12)


def grads_of_first_update(model, data, cfg):
    grads = []
    def hook(opt, args, kwargs):
        grads.append([p.grad.clone() for g in opt.param_groups for p in g["params"]])
    handle = register_optimizer_step_pre_hook(hook)
    try:
        train(model, data, [], cfg, PAD, BOS, EOS)
    finally:
        handle.remove()
    return grads[0]


def test_gradient_accumulation_equals_one_big_batch(tmp_path):
    short = [([4 + i, 5, 6, EOS], [6, 5, 4 + i]) for i in range(4)]                 # 4 target tokens each
    long = [([4 + i, 5, 6, 7, 8, 9, 10, EOS], [10, 9, 8, 7, 6, 5, 4 + i]) for i in range(4)]   # 8 each
    data = short + long
    assert batches_per_epoch(32, data) == 2 and batches_per_epoch(64, data) == 1
    common = dict(max_steps=1, clip_norm=None)
    full = grads_of_first_update(tiny_model(dropout=0.0), data, config(tmp_path / "a", max_tokens=64, **common))
    halves = grads_of_first_update(tiny_model(dropout=0.0), data,
                                   config(tmp_path / "b", max_tokens=32, accum_steps=2, **common))
    for g_full, g_acc in zip(full, halves):
        assert_close(g_acc, g_full, rtol=1e-5, atol=1e-7)
    # the halves hold 16 and 32 target tokens: averaging their two mean losses would be a different gradient
    model = tiny_model(dropout=0.0)
    crit = LabelSmoothingLoss(0.1, PAD)
    for part in (short, long):
        b = make_batch(part, PAD, BOS, EOS)
        (crit(model(b.src, b.tgt_in, b.src_mask, b.tgt_mask), b.tgt_out) / 2).backward()
    naive = [p.grad for p in model.parameters()]
    assert max((a - b).abs().max().item() for a, b in zip(naive, full)) > 1e-4


def run(out_dir, resume=False, model_seed=0, **kw):
    "A tiny run with dropout on; a resumed one starts from other weights and scrambled generators."
    if resume: scramble_rng()
    model = tiny_model(seed=123 if resume else model_seed)
    history = train(model, DATA, VALID, config(out_dir, **kw), PAD, BOS, EOS, resume=resume)
    return params(model), history


@pytest.mark.parametrize("accum_steps,stop_at", [(1, 3), (2, 3), (1, 1)])
def test_resume_mid_epoch_equals_uninterrupted(tmp_path, accum_steps, stop_at):
    n = batches_per_epoch()
    total = n // accum_steps + 3                                       # crosses into the second epoch
    assert stop_at * accum_steps < n                                   # the interruption is mid-epoch
    whole, whole_history = run(tmp_path / "whole", max_steps=total, accum_steps=accum_steps, eval_every=4,
                               ckpt_every=5)
    run(tmp_path / "parts", max_steps=stop_at, accum_steps=accum_steps, eval_every=4, ckpt_every=5)
    state = load_checkpoint(tmp_path / "parts" / "checkpoint.pt")
    assert state["sampler"]["epoch"] == 0 and 0 < state["sampler"]["position"] < n
    resumed, resumed_history = run(tmp_path / "parts", resume=True, max_steps=total, accum_steps=accum_steps,
                                   eval_every=4, ckpt_every=5)
    assert_same_params(whole, resumed)
    assert train_records(whole_history) == train_records(resumed_history)
    valid = lambda h: [(r["step"], r["valid_loss"]) for r in h if "valid_loss" in r and r["step"] % 4 == 0]
    assert valid(whole_history) == valid(resumed_history)
    a, b = (load_checkpoint(tmp_path / d / "checkpoint.pt") for d in ("whole", "parts"))
    assert a["sampler"] == b["sampler"] and a["step"] == b["step"] == total


def test_resume_after_a_crash_between_checkpoints(tmp_path):
    "A run that dies after its periodic checkpoint at step 4 resumes from there to the uninterrupted result."
    whole, whole_history = run(tmp_path / "whole", max_steps=9, ckpt_every=4)

    class Crash(Exception): pass
    def crash_at_step_6(record):
        if record["step"] >= 6: raise Crash()
    scramble_rng()
    with pytest.raises(Crash):
        train(tiny_model(), DATA, VALID, config(tmp_path / "crashed", max_steps=9, ckpt_every=4), PAD, BOS, EOS,
              callback=crash_at_step_6)
    assert load_checkpoint(tmp_path / "crashed" / "checkpoint.pt")["step"] == 4
    resumed, history = run(tmp_path / "crashed", resume=True, max_steps=9, ckpt_every=4)
    assert_same_params(whole, resumed)
    assert train_records(history) == train_records(whole_history)
    lines = [json.loads(l) for l in (tmp_path / "crashed" / "metrics.jsonl").read_text().splitlines()]
    assert lines == history                                      # the crashed run's lines after step 4 are gone


def test_resume_needs_the_random_state(tmp_path):
    "Dropout is on: restoring everything but the generators would not give the same run (the test is sensitive)."
    whole, _ = run(tmp_path / "whole", max_steps=6)
    run(tmp_path / "parts", max_steps=3)
    path = tmp_path / "parts" / "checkpoint.pt"
    state = load_checkpoint(path)
    state["ranks"][0]["torch"] = torch.Generator().manual_seed(42).get_state()
    save_checkpoint(path, state)
    resumed, _ = run(tmp_path / "parts", resume=True, max_steps=6)
    assert any(not torch.equal(whole[k], resumed[k]) for k in whole)


@pytest.mark.parametrize("accum_steps", [1, 2])
def test_resume_at_an_epoch_boundary_and_max_epochs_end_cleanly(tmp_path, accum_steps):
    n = batches_per_epoch()
    whole, whole_history = run(tmp_path / "whole", max_steps=None, max_epochs=2, accum_steps=accum_steps)
    assert whole_history[-1]["step"] == 2 * n // accum_steps and "valid_loss" in whole_history[-1]
    first, _ = run(tmp_path / "parts", max_steps=None, max_epochs=1, accum_steps=accum_steps)
    state = load_checkpoint(tmp_path / "parts" / "checkpoint.pt")
    assert state["step"] == n // accum_steps
    resumed, _ = run(tmp_path / "parts", resume=True, max_steps=None, max_epochs=2, accum_steps=accum_steps)
    assert_same_params(whole, resumed)
    # resuming a finished run does nothing and ends cleanly
    again, history = run(tmp_path / "parts", resume=True, max_steps=None, max_epochs=2, accum_steps=accum_steps)
    assert_same_params(resumed, again)
    assert load_checkpoint(tmp_path / "parts" / "checkpoint.pt")["step"] == 2 * n // accum_steps


def test_resume_in_a_fresh_process(tmp_path):
    total, stop_at = 7, 3
    whole, _ = run(tmp_path / "whole", max_steps=total, accum_steps=2)
    run(tmp_path / "parts", max_steps=stop_at, accum_steps=2)
    script = textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        from test_training import run
        params, _ = run({str(tmp_path / 'parts')!r}, resume=True, max_steps={total}, accum_steps=2)
        torch.save(params, {str(tmp_path / 'resumed.pt')!r})
    """)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert_same_params(whole, torch.load(tmp_path / "resumed.pt", weights_only=True))


def test_progress_bar_total(tmp_path, monkeypatch):
    bars = []

    class FakeBar:
        def __init__(self, total=None, initial=0, **kw):
            self.total, self.n = total, initial
            bars.append(self)
        def update(self, k=1): self.n += k
        def set_postfix(self, refresh=True, **kw): self.postfix = kw
        def close(self): pass

    monkeypatch.setattr(loop, "tqdm", FakeBar)
    n = batches_per_epoch()
    train(tiny_model(), DATA, [], config(tmp_path / "a", max_steps=None, max_epochs=2, accum_steps=2), PAD, BOS, EOS)
    assert bars[-1].total == 2 * n // 2 == bars[-1].n
    train(tiny_model(), DATA, [], config(tmp_path / "b", max_steps=5, max_epochs=3), PAD, BOS, EOS)
    assert bars[-1].total == 5 == bars[-1].n
    train(tiny_model(), DATA, [], config(tmp_path / "b", max_steps=10 ** 6, max_epochs=1), PAD, BOS, EOS, resume=True)
    assert bars[-1].total == n and bars[-1].n == n and bars[-1].postfix.keys() == {"loss", "tok_s", "lr"}


def test_time_limit(tmp_path):
    history = train(tiny_model(), DATA, VALID, config(tmp_path, max_steps=50, max_minutes=0), PAD, BOS, EOS)
    assert history[-1]["step"] == 0 and "valid_loss" in history[-1]          # stopped at once, cleanly
    assert load_checkpoint(tmp_path / "checkpoint.pt")["step"] == 0
    history = train(tiny_model(), DATA, [], config(tmp_path / "b", max_steps=4, max_minutes=10), PAD, BOS, EOS)
    assert history[-1]["step"] == 4


@pytest.mark.parametrize("precision,dtype", [("bf16", torch.bfloat16), ("fp32", torch.float32)])
def test_training_on_cpu_in_the_precision_asked_for(tmp_path, precision, dtype):
    "precision='bf16' computes the training forward pass in bf16 on a CPU too; 'fp32' keeps fp32."
    model, seen = tiny_model(), []
    forward = model.forward
    model.forward = lambda *a, **k: seen.append(forward(*a, **k)) or seen[-1]
    history = train(model, DATA, [], config(tmp_path, max_steps=3, precision=precision, log_every=1), PAD, BOS, EOS)
    assert all(math.isfinite(r["train_loss"]) for r in history if "train_loss" in r)
    assert len(seen) >= 3 and {t.dtype for t in seen} == {dtype}
    assert history[0] == {"step": 0, "precision": precision, "reason": "asked for"}


# ------------------------------------------------------------------------------------------ precision by measurement
FAST_BF16 = lambda dtype: 2594.0 if dtype == torch.bfloat16 else 278.0     # GFLOP/s with AMX (issue 12's Xeon)
SLOW_BF16 = lambda dtype: 1.2 if dtype == torch.bfloat16 else 178.0        # the same Xeon restricted to AVX2


def never(*args):
    raise AssertionError("must not be measured")


def test_choose_precision_with_faked_measurements():
    assert choose_precision("auto", "cpu", never, SLOW_BF16)[0] == "fp32"           # no update timed at all
    assert choose_precision("auto", "cpu", lambda bf16: 0.5 if bf16 else 1.0, FAST_BF16)[0] == "bf16"
    assert choose_precision("auto", "cpu", lambda bf16: 1.5 if bf16 else 1.0, FAST_BF16)[0] == "fp32"
    assert choose_precision("auto", "cpu", lambda bf16: 0.95 if bf16 else 1.0, FAST_BF16)[0] == "fp32"  # < 10%
    assert choose_precision("fp32", "cpu", never, never) == ("fp32", "asked for")
    assert choose_precision("bf16", "cpu", never, never) == ("bf16", "asked for")
    choice, reason = choose_precision("auto", "cpu", lambda bf16: 0.25 if bf16 else 0.5, FAST_BF16)
    assert "0.250 s in bf16" in reason and "0.500 s in fp32" in reason
    with pytest.raises(ValueError, match="auto, fp32 or bf16"):
        choose_precision("fp16", "cpu", never, never)


@pytest.mark.parametrize("supported,expected", [(True, "bf16"), (False, "fp32")])
def test_choose_precision_on_cuda_asks_the_gpu(monkeypatch, supported, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: supported)
    assert choose_precision("auto", "cuda", never, never)[0] == expected


def test_matmul_gflops_divides_the_products_flops_by_its_best_time(monkeypatch):
    "With a clock that ticks 2 ms per reading, each product takes 2 ms: (n, n) @ (n, 4n) is 8 n^3 FLOPs."
    monkeypatch.setattr(machine, "time", FakeClock(0.002))
    assert matmul_gflops(torch.float32, n=64) == pytest.approx(8 * 64 ** 3 / 0.002 / 1e9)
    monkeypatch.undo()
    assert 0 < matmul_gflops(torch.bfloat16, n=64) < 1e6                  # and the real clock gives a speed


def test_update_timing_leaves_no_trace():
    "The probe runs forward and backward with dropout on, but the run must not notice it happened."
    model, b = tiny_model(dropout=0.3).train(), make_batch(DATA[:8], PAD, BOS, EOS)
    before, rng = params(model), torch.get_rng_state()
    assert update_seconds(model, b, LabelSmoothingLoss(0.1, PAD), False) > 0
    assert all(p.grad is None for p in model.parameters()) and torch.equal(rng, torch.get_rng_state())
    assert_same_params(before, params(model))


def fake_measurements(monkeypatch, bf16_seconds):
    "Replace both probes in the loop: bf16 matrix products are fast, and an update takes bf16_seconds in bf16."
    monkeypatch.setattr(loop, "matmul_gflops", FAST_BF16)
    monkeypatch.setattr(loop, "update_seconds", lambda model, b, crit, bf16: bf16_seconds if bf16 else 1.0)


@pytest.mark.parametrize("bf16_seconds,expected", [(0.5, "bf16"), (2.0, "fp32")])
def test_auto_precision_is_recorded_and_used(tmp_path, monkeypatch, bf16_seconds, expected):
    fake_measurements(monkeypatch, bf16_seconds)
    model, seen = tiny_model(), []
    model.register_forward_hook(lambda m, args, out: seen.append(out.dtype))
    history = train(model, DATA, VALID, config(tmp_path, max_steps=4, precision="auto"), PAD, BOS, EOS)
    assert history[0]["precision"] == expected and "in bf16" in history[0]["reason"]
    assert json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[0]) == history[0]
    assert load_checkpoint(tmp_path / "checkpoint.pt")["precision"] == {k: history[0][k] for k in ("precision", "reason")}
    assert set(seen[:4]) == {torch.bfloat16 if expected == "bf16" else torch.float32}   # the training updates


def test_resume_keeps_the_precision_unless_asked_otherwise(tmp_path, monkeypatch):
    fake_measurements(monkeypatch, 0.5)                               # the first session measures bf16 faster
    train(tiny_model(), DATA, [], config(tmp_path, max_steps=2, precision="auto"), PAD, BOS, EOS)
    fake_measurements(monkeypatch, 2.0)                               # the machine would now say fp32
    history = train(tiny_model(), DATA, [], config(tmp_path, max_steps=4, precision="auto"), PAD, BOS, EOS,
                    resume=True)
    assert load_checkpoint(tmp_path / "checkpoint.pt")["precision"]["precision"] == "bf16"
    assert [r["precision"] for r in history if "precision" in r] == ["bf16"]     # decided once
    history = train(tiny_model(), DATA, [], config(tmp_path, max_steps=6, precision="fp32"), PAD, BOS, EOS,
                    resume=True)
    assert load_checkpoint(tmp_path / "checkpoint.pt")["precision"] == {"precision": "fp32", "reason": "asked for"}
    assert [r["precision"] for r in history if "precision" in r] == ["bf16", "fp32"]   # the change is on record


# ------------------------------------------------------------------------------------------ a plan that fits the time
def test_plan_updates_from_a_fake_throughput():
    # 600 s budget, 3% reserve: 582 s usable; 40 updates took 42 s; 540 s left at 0.5 s each = 1080 more
    assert plan_updates(600, 42, 40, 0.5) == 40 + 1080
    assert plan_updates(600, 42, 40, 2.0) == 40 + 270                # a machine four times slower plans a quarter
    assert plan_updates(600, 42, 40, 0.5, most=500) == 500           # a cap from max_steps
    assert plan_updates(600, 700, 40, 0.5) == 40                     # over budget already: no more updates
    assert plan_updates(600, 0, 0, 1.0, reserve=0.0) == 600


class FakeClock:
    "Stands in for the time module inside training: every reading is `tick` seconds after the previous one."
    def __init__(self, tick):
        self.now, self.tick = 1000.0, tick

    def time(self):
        self.now += self.tick
        return self.now

    perf_counter = time


class Interrupt(Exception):
    pass


def planned_run(out_dir, monkeypatch, resume=False, stop_at=None, tick=0.25):
    monkeypatch.setattr(loop, "time", FakeClock(tick))
    if resume: scramble_rng()
    model = tiny_model(seed=123 if resume else 0)
    cfg = config(out_dir, max_minutes=0.5, fit_to_time=True, plan_after=8, warmup=10, ckpt_every=5, log_every=1,
                 eval_every=None)
    def interrupt(record):                                          # Ctrl-C in the middle of the run
        if stop_at and record.get("step") == stop_at and "train_loss" in record: raise Interrupt
    try:
        history = train(model, DATA, VALID, cfg, PAD, BOS, EOS, resume=resume, callback=interrupt)
    except Interrupt:
        return None, None
    return model, history


def test_planned_run_ends_at_its_plan_with_the_rate_at_zero(tmp_path, monkeypatch):
    model, history = planned_run(tmp_path, monkeypatch)
    plan = [r["plan"] for r in history if "plan" in r]
    assert len(plan) == 1 and plan[0]["fixed_at"] == 8                # fixed once, before warmup (10) ends
    steps = plan[0]["steps"]
    assert steps == plan_updates(30, plan[0]["spent_s"], 8, plan[0]["seconds_per_update"]) and 10 < steps < 500
    lrs = [r["lr"] for r in history if "train_loss" in r]
    assert history[-1]["step"] == steps and len(lrs) == steps
    assert lrs == pytest.approx([linear_decay_lr(s, 16, 10, steps, 1.0) for s in range(1, steps + 1)])
    assert lrs[-1] == pytest.approx(max(lrs) / (steps + 1 - 10))     # one step above zero: decayed, not cut off
    assert load_checkpoint(tmp_path / "checkpoint.pt")["plan"] == plan[0]
    _, slower = planned_run(tmp_path / "slow", monkeypatch, tick=0.5)  # every update takes twice the time
    slow = next(r["plan"] for r in slower if "plan" in r)
    assert slow["spent_s"] == pytest.approx(2 * plan[0]["spent_s"])
    assert slow["seconds_per_update"] == pytest.approx(2 * plan[0]["seconds_per_update"])
    assert slow["steps"] == plan_updates(30, 2 * plan[0]["spent_s"], 8, 2 * plan[0]["seconds_per_update"]) < steps
    assert slower[-1]["step"] == slow["steps"]


def test_planned_run_resumes_exactly_plan_included(tmp_path, monkeypatch):
    whole, whole_history = planned_run(tmp_path / "whole", monkeypatch)
    assert planned_run(tmp_path / "parts", monkeypatch, stop_at=17) == (None, None)   # killed after update 17
    assert load_checkpoint(tmp_path / "parts" / "checkpoint.pt")["step"] == 15        # the last checkpoint
    resumed, resumed_history = planned_run(tmp_path / "parts", monkeypatch, resume=True)
    assert_same_params(params(whole), params(resumed))
    assert train_records(whole_history) == train_records(resumed_history)
    plans = [r["plan"] for r in resumed_history if "plan" in r]
    assert plans == [r["plan"] for r in whole_history if "plan" in r] and len(plans) == 1


def test_fit_to_time_needs_a_time_limit(tmp_path):
    with pytest.raises(ValueError, match="max_minutes"):
        train(tiny_model(), DATA, [], config(tmp_path, fit_to_time=True), PAD, BOS, EOS)
    with pytest.raises(ValueError, match="plans its own decay_steps"):
        train(tiny_model(), DATA, [], config(tmp_path, fit_to_time=True, max_minutes=1, decay_steps=50), PAD, BOS, EOS)


def test_evaluate_matches_one_big_batch():
    model = tiny_model(dropout=0.3).train()
    metrics = evaluate(model, VALID, PAD, BOS, EOS, max_tokens=30, smoothing=0.1)
    assert model.training                                        # the mode is restored
    model.eval()
    b = make_batch(VALID, PAD, BOS, EOS)
    with torch.no_grad():
        logits = model(b.src, b.tgt_in, b.src_mask, b.tgt_mask)
    expected_loss = LabelSmoothingLoss(0.1, PAD)(logits, b.tgt_out).item()
    expected_ppl = math.exp(F.cross_entropy(logits.flatten(0, 1), b.tgt_out.flatten(), ignore_index=PAD).item())
    assert metrics["valid_loss"] == pytest.approx(expected_loss, rel=1e-5)
    assert metrics["valid_ppl"] == pytest.approx(expected_ppl, rel=1e-5)


def test_training_reduces_the_loss(tmp_path):
    model = tiny_model(dropout=0.0)
    before = evaluate(model, VALID, PAD, BOS, EOS)["valid_loss"]
    history = train(model, DATA, VALID, config(tmp_path, max_steps=40, warmup=10, lr_factor=2.0), PAD, BOS, EOS)
    assert history[-1]["valid_loss"] < 0.8 * before


# ------------------------------------------------------------------------------------------ the fused loss
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.25])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_fused_loss_equals_the_readable_one_and_its_gradient_is_p_minus_q(eps, dtype):
    torch.manual_seed(1)
    vocab = 11
    target = torch.randint(1, vocab, (4, 7)); target[0, 4:] = PAD; target[3, :] = PAD    # a row of padding only
    target[1, 2] = 4                                                                       # and a repeated id
    real = target != PAD
    x = (3 * torch.randn(4, 7, vocab)).to(dtype)
    results = []
    for fused in (False, True):
        logits = x.clone().requires_grad_()
        loss = LabelSmoothingLoss(eps, PAD, fused=fused)(logits, target)
        (2.5 * loss).backward()                                                            # an upstream gradient
        results.append((loss, logits.grad))
    (loss_r, grad_r), (loss_f, grad_f) = results
    assert_close(loss_f, loss_r)
    assert grad_f.dtype == dtype
    tol = dict(atol=1e-2, rtol=1e-2) if dtype == torch.bfloat16 else {}
    assert_close(grad_f.float(), grad_r.float(), **tol)
    q = smoothed_targets(target, vocab, eps, PAD)
    expected = 2.5 * (x.float().softmax(-1) - q) * real.unsqueeze(-1) / real.sum()        # independent of both
    assert_close(grad_f.float(), expected, **tol)
    assert (grad_f[3] == 0).all() and (grad_f[0, 4:] == 0).all()                         # padding gets nothing


def test_fused_loss_with_no_real_token_is_zero_with_zero_gradient():
    logits = torch.randn(2, 3, 9, requires_grad=True)
    loss = LabelSmoothingLoss(0.1, PAD, fused=True)(logits, torch.zeros(2, 3, dtype=torch.long))
    loss.backward()
    assert loss.item() == 0.0 and (logits.grad == 0).all()


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="torch.compile on a CPU needs a C compiler")
def test_compiled_training_matches_eager(tmp_path):
    "TrainConfig.compile: the same run under torch.compile (as on a GPU) gives the same losses, to rounding."
    histories = []
    for compiled in (False, True):
        model = tiny_model(dropout=0.0)
        histories.append(train(model, DATA, VALID, config(tmp_path / str(compiled), max_steps=4, log_every=1,
                                                          compile=compiled), PAD, BOS, EOS))
    eager, compiled = ([r["train_loss"] for r in h if "train_loss" in r] for h in histories)
    assert len(eager) == 4 and compiled == pytest.approx(eager, rel=1e-4)
    assert histories[1][-1]["valid_loss"] == pytest.approx(histories[0][-1]["valid_loss"], rel=1e-4)


def test_cpu_capability_names_level_bf16_instructions_and_restrictions(monkeypatch):
    for k in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    text = machine.cpu_capability()
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        flags = set()
    bf16 = [f for f in ("amx_bf16", "avx512_bf16", "bf16") if f in flags]
    assert text == "AVX2, " + (" ".join(bf16) if bf16 else "no bf16 instructions")
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    assert machine.cpu_capability().endswith("(restricted: ONEDNN_MAX_CPU_ISA=AVX2)")


def test_learning_rate_is_noam_or_the_linear_decay():
    for s in (1, 50, 100, 101, 250, 400):
        assert learning_rate(s, 512, 100) == pytest.approx(512 ** -0.5 * min(s ** -0.5, s * 100 ** -1.5))
        peak = 2.0 * 512 ** -0.5 * 100 ** -0.5
        expected = 2.0 * 512 ** -0.5 * s * 100 ** -1.5 if s <= 100 else peak * (401 - s) / 301
        assert learning_rate(s, 512, 100, 2.0, decay_steps=400) == pytest.approx(expected)
    assert learning_rate(401, 512, 100, 2.0, decay_steps=400) == 0.0
    with pytest.raises(ValueError, match="larger than warmup"):
        learning_rate(1, 512, 100, decay_steps=100)


class DriftingClock(FakeClock):
    "A machine whose speed drifts: each tick is `factor` times the one before (> 1: slowing down)."
    def __init__(self, tick, factor):
        super().__init__(tick)
        self.factor = factor

    def time(self):
        self.tick *= self.factor
        return super().time()


def test_planned_run_plans_again_at_each_validation_and_ends_in_time(tmp_path, monkeypatch):
    # the first plan, from fast early updates, would overrun; the plans made at validations correct it
    monkeypatch.setattr(loop, "time", DriftingClock(0.25, 1.002))
    cfg = config(tmp_path, max_minutes=0.5, fit_to_time=True, plan_after=8, warmup=10, ckpt_every=None,
                 log_every=1, eval_every=10)
    history = train(tiny_model(), DATA, VALID, cfg, PAD, BOS, EOS)
    plans = [r["plan"] for r in history if "plan" in r]
    assert len(plans) > 2 and plans[0]["fixed_at"] == 8 and [p["fixed_at"] for p in plans[1:3]] == [10, 20]
    assert plans[-1]["steps"] < plans[0]["steps"]                    # it slowed down, so it plans fewer
    steps = plans[-1]["steps"]
    assert history[-1]["step"] == steps                               # it ends where the last plan said ...
    lrs = [r["lr"] for r in history if "train_loss" in r]
    assert len(lrs) == steps and 0 < lrs[-1] < 0.1 * max(lrs)         # ... with the rate nearly at zero
    assert load_checkpoint(tmp_path / "checkpoint.pt")["plan"] == plans[-1]


def test_a_later_plan_may_be_longer_than_the_first(tmp_path, monkeypatch):
    "Plans made at validations are capped by max_steps and the epochs, not by the earlier plan."
    monkeypatch.setattr(loop, "time", DriftingClock(0.25, 0.998))     # faster and faster
    cfg = config(tmp_path, max_minutes=0.5, fit_to_time=True, plan_after=8, warmup=10, ckpt_every=None,
                 log_every=1, eval_every=10, max_epochs=1000)
    history = train(tiny_model(), DATA, VALID, cfg, PAD, BOS, EOS)
    plans = [r["plan"]["steps"] for r in history if "plan" in r]
    assert plans[-1] > plans[0] and history[-1]["step"] == plans[-1]
