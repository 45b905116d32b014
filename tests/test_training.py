"""Tests for transformer.training (chapter 7): the toy task, batches, the sampler, label smoothing, the schedule,
evaluation, the loop `fit`; and for transformer.fused_loss (chapter 15), held to the readable loss."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close
from training_helpers import (
    BOS,
    DATA,
    EOS,
    PAD,
    VALID,
    assert_same_params,
    batches_per_epoch,
    one_thread,  # noqa: F401 (an autouse fixture)
    params,
    random_lengths,
    tiny_model,
)

from transformer.fused_loss import FusedLabelSmoothingLoss, _FusedSmoothedLoss
from transformer.training import (
    LabelSmoothingLoss,
    TokenBatchSampler,
    fit,
    learning_rate,
    linear_decay_lr,
    make_batch,
    make_optimizer,
    noam_lr,
    reverse_task,
    smoothed_targets,
    toy_splits,
    validation_loss,
)


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
        reverse_task(1, vocab_size=8, max_len=5)  # 4 symbols cannot make 5 distinct ones


def test_toy_splits_hold_out_unseen_sources_once_each():
    train, valid, test = toy_splits()
    assert (len(train), len(valid), len(test)) == (10_000, 500, 500)
    assert train == reverse_task(10_000, seed=0)  # the chapter's training pairs
    seen = {tuple(s) for s, _ in train}
    held = [tuple(s) for s, _ in valid + test]
    assert not seen.intersection(held) and len(set(held)) == len(held)
    assert all(t == s[-2::-1] for s, t in valid + test)
    assert toy_splits() == (train, valid, test)  # the same split every time
    small = toy_splits(n_train=50, n_valid=3, n_test=4, vocab_size=10, max_len=4)
    assert [len(x) for x in small] == [50, 3, 4] and all(len(t) <= 4 for _, t in small[0])
    with pytest.raises(ValueError, match="unseen sources"):
        toy_splits(n_train=2000, n_valid=400, n_test=400, vocab_size=7, max_len=2)  # only 6 * 5 + 6 exist


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
        expected = [[j <= i and j <= len(t) for j in range(6)] for i in range(6)]  # causal, key j not padding
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
    assert torch.equal(shifted.sum(1) + 1, real.sum(1))  # the output has one more real token: <eos>
    last = real.sum(1) - 1  # position of <eos> in each row
    assert (b.tgt_out[torch.arange(30), last] == EOS).all()


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
    batches = TokenBatchSampler(src, tgt, max_tokens=20, shuffle=False).batches()
    assert [2] in batches and [1] in batches
    assert sorted(i for b in batches for i in b) == [0, 1, 2, 3]


def test_sampler_groups_similar_lengths():
    src, tgt = random_lengths(seed=1)
    batches = TokenBatchSampler(src, tgt, max_tokens=300, seed=0).batches()
    key = lambda i: (src[i], tgt[i])
    ranges = sorted((min(map(key, b)), max(map(key, b))) for b in batches)
    for (_, hi), (lo, _) in zip(ranges, ranges[1:]):
        assert hi <= lo  # batches are contiguous runs of the length order


def test_sampler_deterministic_per_seed_and_different_across_epochs():
    src, tgt = random_lengths()
    a, b, c = (TokenBatchSampler(src, tgt, 200, seed=s) for s in (0, 0, 1))
    first = epoch(a)
    assert first == epoch(b) and first != epoch(c)
    assert a.epoch == 1 and epoch(a) != first
    s1 = TokenBatchSampler(src, tgt, 200, seed=0)
    s1.epoch = 1
    s2 = TokenBatchSampler(src, tgt, 200, seed=0)
    epoch(s2)
    assert epoch(s1) == epoch(s2)  # epoch 1 is the same however we get there
    assert len({len(TokenBatchSampler(src, tgt, 200, seed=0)) for _ in range(2)}) == 1


def brute_force_q(target, vocab, eps, pad):
    q = torch.zeros(*target.shape, vocab)
    for idx in range(target.numel()):
        pos = divmod(idx, target.shape[1])
        y = target[pos].item()
        if y == pad:
            continue
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
    assert (q[..., pad] == 0).all()  # <pad> never gets probability
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
    kl = F.kl_div(logp[real], q[real], reduction="sum")  # PyTorch's KL(q || p)
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
    expected = (p - q) * real.unsqueeze(-1) / real.sum()  # d(mean cross-entropy)/d logits
    assert_close(logits.grad, expected)
    assert (logits.grad[~real] == 0).all()


def test_label_smoothing_loss_accepts_bf16_logits():
    torch.manual_seed(3)
    logits = torch.randn(2, 4, 10)
    target = torch.randint(1, 10, (2, 4))
    loss = LabelSmoothingLoss()(logits.bfloat16(), target)
    assert loss.dtype == torch.float32
    assert_close(loss, LabelSmoothingLoss()(logits.bfloat16().float(), target))


def test_noam_lr_closed_formula_and_peak():
    for d_model, warmup in [(512, 4000), (64, 100), (1024, 4000)]:
        for s in [1, 2, warmup // 2, warmup - 1, warmup, warmup + 1, 10 * warmup]:
            expected = d_model**-0.5 * min(s**-0.5, s * warmup**-1.5)
            assert math.isclose(noam_lr(s, d_model, warmup), expected, rel_tol=1e-12)
        rates = [noam_lr(s, d_model, warmup) for s in range(1, 3 * warmup)]
        assert rates.index(max(rates)) + 1 == warmup
        assert math.isclose(max(rates), (d_model * warmup) ** -0.5, rel_tol=1e-12)
        assert all(a < b for a, b in zip(rates[: warmup - 1], rates[1:warmup]))  # linear warmup
        assert all(a > b for a, b in zip(rates[warmup - 1 :], rates[warmup:]))  # then decay
    assert math.isclose(noam_lr(10, 64, 100, factor=0.5), 0.5 * noam_lr(10, 64, 100))
    assert math.isclose(noam_lr(4000, 512, 4000), 512**-0.5 * 4000**-0.5)
    assert noam_lr(0, 512, 4000) == noam_lr(1, 512, 4000)


def test_linear_decay_closed_formula():
    d_model, warmup, total = 64, 10, 50
    peak = (d_model * warmup) ** -0.5
    for s in range(1, warmup + 1):  # the warmup is Noam's
        assert math.isclose(linear_decay_lr(s, d_model, warmup, total), peak * s / warmup, rel_tol=1e-12)
    for s in range(warmup, total + 1):  # then a line from the peak to 0 at total + 1
        expected = peak * (total + 1 - s) / (total + 1 - warmup)
        assert math.isclose(linear_decay_lr(s, d_model, warmup, total), expected, rel_tol=1e-12)
    assert (
        linear_decay_lr(total + 1, d_model, warmup, total) == 0 == linear_decay_lr(10 * total, d_model, warmup, total)
    )
    assert linear_decay_lr(total, d_model, warmup, total) > 0
    assert math.isclose(
        linear_decay_lr(30, d_model, warmup, total, factor=0.3),
        0.3 * linear_decay_lr(30, d_model, warmup, total),
    )
    with pytest.raises(ValueError, match="decay_steps"):
        learning_rate(1, d_model, warmup, decay_steps=warmup)


def test_validation_loss_matches_one_big_batch():
    model = tiny_model(dropout=0.3).train()
    metrics = validation_loss(model, VALID, PAD, BOS, EOS, max_tokens=30, smoothing=0.1)
    assert model.training  # the mode is restored
    model.eval()
    b = make_batch(VALID, PAD, BOS, EOS)
    with torch.no_grad():
        logits = model(b.src, b.tgt_in, b.src_mask, b.tgt_mask)
    expected_loss = LabelSmoothingLoss(0.1, PAD)(logits, b.tgt_out).item()
    expected_ppl = math.exp(F.cross_entropy(logits.flatten(0, 1), b.tgt_out.flatten(), ignore_index=PAD).item())
    assert metrics["valid_loss"] == pytest.approx(expected_loss, rel=1e-5)
    assert metrics["valid_ppl"] == pytest.approx(expected_ppl, rel=1e-5)


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.25])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("rows", [64, 3])  # one block, or ten
def test_fused_loss_equals_the_readable_one_and_its_gradient_is_p_minus_q(eps, dtype, rows):
    torch.manual_seed(1)
    vocab = 11
    target = torch.randint(1, vocab, (4, 7))
    target[0, 4:] = PAD
    target[3, :] = PAD  # a row of padding only
    target[1, 2] = 4  # and a repeated id
    real = target != PAD
    x = (3 * torch.randn(4, 7, vocab)).to(dtype)
    results = []
    for fused in (False, True):
        logits = x.clone().requires_grad_()
        loss = (
            _FusedSmoothedLoss.apply(logits, target, eps, PAD, rows)
            if fused
            else LabelSmoothingLoss(eps, PAD)(logits, target)
        )
        if fused and rows == 64:  # the module: the same
            assert_close(FusedLabelSmoothingLoss(eps, PAD)(x.clone(), target), loss.detach())
        (2.5 * loss).backward()  # an upstream gradient
        results.append((loss, logits.grad))
    (loss_r, grad_r), (loss_f, grad_f) = results
    assert_close(loss_f, loss_r)
    assert grad_f.dtype == dtype
    tol = dict(atol=1e-2, rtol=1e-2) if dtype == torch.bfloat16 else {}
    assert_close(grad_f.float(), grad_r.float(), **tol)
    q = smoothed_targets(target, vocab, eps, PAD)
    expected = 2.5 * (x.float().softmax(-1) - q) * real.unsqueeze(-1) / real.sum()  # independent of both
    assert_close(grad_f.float(), expected, **tol)
    assert (grad_f[3] == 0).all() and (grad_f[0, 4:] == 0).all()  # padding gets nothing


def test_fused_loss_with_no_real_token_is_zero_with_zero_gradient():
    logits = torch.randn(2, 3, 9, requires_grad=True)
    loss = FusedLabelSmoothingLoss(0.1, PAD)(logits, torch.zeros(2, 3, dtype=torch.long))
    loss.backward()
    assert loss.item() == 0.0 and (logits.grad == 0).all()


def test_learning_rate_is_noam_or_the_linear_decay():
    for s in (1, 50, 100, 101, 250, 400):
        assert learning_rate(s, 512, 100) == pytest.approx(512**-0.5 * min(s**-0.5, s * 100**-1.5))
        peak = 2.0 * 512**-0.5 * 100**-0.5
        expected = 2.0 * 512**-0.5 * s * 100**-1.5 if s <= 100 else peak * (401 - s) / 301
        assert learning_rate(s, 512, 100, 2.0, decay_steps=400) == pytest.approx(expected)
    assert learning_rate(401, 512, 100, 2.0, decay_steps=400) == 0.0
    with pytest.raises(ValueError, match="larger than warmup"):
        learning_rate(1, 512, 100, decay_steps=100)


def test_fused_loss_without_gradient_keeps_none_and_is_the_readable_loss():
    torch.manual_seed(2)
    logits, target = torch.randn(3, 70, 9), torch.randint(0, 9, (3, 70))
    with torch.no_grad():
        fused = FusedLabelSmoothingLoss(0.1, PAD)(logits, target)
    assert_close(fused, LabelSmoothingLoss(0.1, PAD)(logits, target))


def reference_fit(model, pairs, max_steps, max_tokens, warmup, lr_factor, smoothing, decay_steps, seed):
    "fit's loop written out: the losses of its updates, one by one."
    sampler = TokenBatchSampler([len(s) for s, _ in pairs], [len(t) + 1 for _, t in pairs], max_tokens, seed=seed)
    batches = [b for _ in range(max_steps) for b in sampler][:max_steps]  # epochs in a row
    adam, losses = make_optimizer(model), []
    model.train()
    for step, indices in enumerate(batches, 1):
        b = make_batch([pairs[i] for i in indices], PAD, BOS, EOS)
        loss = LabelSmoothingLoss(smoothing, PAD)(model(b.src, b.tgt_in, b.src_mask, b.tgt_mask), b.tgt_out)
        loss.backward()
        for g in adam.param_groups:
            g["lr"] = learning_rate(step, model.cfg.d_model, warmup, lr_factor, decay_steps)
        adam.step()
        adam.zero_grad()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("decay_steps", [None, 30])
def test_fit_is_the_loop_of_the_chapter(decay_steps):
    n_batches = batches_per_epoch(48)
    kw = dict(
        max_steps=n_batches + 5,
        max_tokens=48,
        warmup=5,
        lr_factor=2.0,
        smoothing=0.1,
        decay_steps=decay_steps,
        seed=3,
    )  # more than one epoch
    model, seen = tiny_model(seed=1), []
    torch.manual_seed(7)
    assert fit(model, DATA, **kw, callback=lambda step, loss: seen.append((step, loss))) is model
    assert not model.training  # returned in eval mode
    reference = tiny_model(seed=1)
    torch.manual_seed(7)  # the same dropout masks
    expected = reference_fit(reference, DATA, **kw)
    assert [s for s, _ in seen] == list(range(1, kw["max_steps"] + 1))
    assert [l for _, l in seen] == pytest.approx(expected, rel=1e-5)
    assert_same_params(params(model), params(reference))


def test_fit_learns_the_toy_task():
    model = tiny_model(seed=0, dropout=0.0, d_model=32)
    before = validation_loss(model, VALID, PAD, BOS, EOS)["valid_loss"]
    fit(model, DATA, max_steps=150, max_tokens=48, warmup=20, lr_factor=2.0)
    assert validation_loss(model, VALID, PAD, BOS, EOS)["valid_loss"] < 0.6 * before
