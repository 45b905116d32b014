"""Tests for transformer.loop (chapter 24): the update step, records, gradient accumulation, precision in the loop,
planned runs, and that a resumed run ends exactly where an uninterrupted one does."""

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest
import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_pre_hook
from torch.testing import assert_close
from training_helpers import (
    BOS,
    DATA,
    EOS,
    FAST_BF16,
    PAD,
    ROOT,
    VALID,
    VOCAB,
    FakeClock,
    assert_same_params,
    batches_per_epoch,
    config,
    params,
    scramble_rng,
    tiny_model,
    train_records,
)  # noqa: F401 (one_thread: an autouse fixture)

import transformer.loop as loop
import transformer.machine as machine  # its RunClock reads the time of a run
from transformer.checkpoint import Checkpoint, FormatError
from transformer.loop import train, update, update_timer
from transformer.machine import CheapDropout, plan_updates
from transformer.training import (
    LabelSmoothingLoss,
    linear_decay_lr,
    make_batch,
    make_optimizer,
    noam_lr,
    reverse_task,
    validation_loss,
)


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
        ref_opt.step()
        ref_opt.zero_grad()
        assert loss_sum.item() == pytest.approx(loss.item() * b.n_tokens, rel=1e-6)
        assert_same_params(params(model), params(reference))
        assert all(p.grad is None for p in model.parameters())  # cleared for the next update


def test_train_follows_the_linear_decay(tmp_path):
    seen = []
    hook = register_optimizer_step_pre_hook(lambda opt, args, kwargs: seen.append(opt.param_groups[0]["lr"]))
    try:
        train(
            tiny_model(),
            DATA,
            [],
            config(tmp_path, max_steps=9, warmup=3, lr_factor=2.0, decay_steps=9, log_every=1),
            PAD,
            BOS,
            EOS,
        )
    finally:
        hook.remove()
    peak = 2.0 * (16 * 3) ** -0.5
    expected = [peak * s / 3 for s in (1, 2, 3)] + [peak * (10 - s) / 7 for s in range(4, 10)]
    assert seen == pytest.approx(expected, rel=1e-12)


def test_resume_without_or_with_a_foreign_checkpoint(tmp_path):
    with pytest.raises(FormatError, match="no checkpoint"):
        train(tiny_model(), DATA, [], config(tmp_path / "empty", max_steps=2), PAD, BOS, EOS, resume=True)
    train(tiny_model(), DATA, [], config(tmp_path / "run", max_steps=2), PAD, BOS, EOS)
    with pytest.raises(FormatError, match="does not fit"):
        train(tiny_model(d_model=8), DATA, [], config(tmp_path / "run", max_steps=4), PAD, BOS, EOS, resume=True)
    (tmp_path / "other").mkdir()
    torch.save({"weights": torch.ones(2)}, tmp_path / "other" / "checkpoint.pt")
    with pytest.raises(FormatError, match="no format version"):
        train(tiny_model(), DATA, [], config(tmp_path / "other", max_steps=4), PAD, BOS, EOS, resume=True)


def test_checkpoint_contents_and_metrics_file(tmp_path):
    model = tiny_model()
    cfg = config(tmp_path, max_steps=6, eval_every=3, ckpt_every=3, log_every=2)
    history = train(model, DATA, VALID, cfg, PAD, BOS, EOS, record={"command": "a test", "preset": "toy"})
    state = Checkpoint.load(tmp_path / "checkpoint.pt", resumable=True)
    for key in [
        "model",
        "optimizer",
        "sampler",
        "ranks",
        "step",
        "history",
        "train_config",
        "model_config",
        "elapsed_s",
        "precision",
    ]:
        assert getattr(state, key) is not None, key
    assert state.plan is None  # not a timed run
    assert state.step == 6 and (state.command, state.preset) == ("a test", "toy") and state.pipeline is None
    assert state.train_config["max_steps"] == 6 and state.model_config["d_model"] == 16
    assert len(state.ranks) == 1 and set(state.ranks[0]) >= {"torch", "python", "cuda"}
    assert_same_params(state.model, params(model))
    with pytest.raises(TypeError):  # a field the format does not have
        train(tiny_model(), DATA, [], config(tmp_path / "x", max_steps=1), PAD, BOS, EOS, record={"vocab": []})
    lines = [json.loads(l) for l in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert lines == history
    assert [r["step"] for r in history if "valid_loss" in r] == [3, 6]
    assert [r["step"] for r in history if "train_loss" in r] == [2, 4, 6]


def test_learning_rate_of_every_update_in_train(tmp_path):
    seen = []
    hook = register_optimizer_step_pre_hook(lambda opt, args, kwargs: seen.append(opt.param_groups[0]["lr"]))
    try:
        history = train(
            tiny_model(),
            DATA,
            [],
            config(tmp_path, max_steps=9, warmup=4, lr_factor=2.0, log_every=1),
            PAD,
            BOS,
            EOS,
        )
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
    short = [([4 + i, 5, 6, EOS], [6, 5, 4 + i]) for i in range(4)]  # 4 target tokens each
    long = [([4 + i, 5, 6, 7, 8, 9, 10, EOS], [10, 9, 8, 7, 6, 5, 4 + i]) for i in range(4)]  # 8 each
    data = short + long
    assert batches_per_epoch(32, data) == 2 and batches_per_epoch(64, data) == 1
    common = dict(max_steps=1, clip_norm=None)
    full = grads_of_first_update(tiny_model(dropout=0.0), data, config(tmp_path / "a", max_tokens=64, **common))
    halves = grads_of_first_update(
        tiny_model(dropout=0.0), data, config(tmp_path / "b", max_tokens=32, accum_steps=2, **common)
    )
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


def run(out_folder, resume=False, model_seed=0, **kw):
    "A tiny run with dropout on; a resumed one starts from other weights and scrambled generators."
    if resume:
        scramble_rng()
    model = tiny_model(seed=123 if resume else model_seed)
    history = train(model, DATA, VALID, config(out_folder, **kw), PAD, BOS, EOS, resume=resume)
    return params(model), history


@pytest.mark.parametrize("accum_steps,stop_at", [(1, 3), (2, 3), (1, 1)])
def test_resume_mid_epoch_equals_uninterrupted(tmp_path, accum_steps, stop_at):
    n = batches_per_epoch()
    total = n // accum_steps + 3  # crosses into the second epoch
    assert stop_at * accum_steps < n  # the interruption is mid-epoch
    whole, whole_history = run(tmp_path / "whole", max_steps=total, accum_steps=accum_steps, eval_every=4, ckpt_every=5)
    run(tmp_path / "parts", max_steps=stop_at, accum_steps=accum_steps, eval_every=4, ckpt_every=5)
    state = Checkpoint.load(tmp_path / "parts" / "checkpoint.pt")
    assert state.sampler["epoch"] == 0 and 0 < state.sampler["position"] < n
    resumed, resumed_history = run(
        tmp_path / "parts", resume=True, max_steps=total, accum_steps=accum_steps, eval_every=4, ckpt_every=5
    )
    assert_same_params(whole, resumed)
    assert train_records(whole_history) == train_records(resumed_history)
    valid = lambda h: [(r["step"], r["valid_loss"]) for r in h if "valid_loss" in r and r["step"] % 4 == 0]
    assert valid(whole_history) == valid(resumed_history)
    a, b = (Checkpoint.load(tmp_path / d / "checkpoint.pt") for d in ("whole", "parts"))
    assert a.sampler == b.sampler and a.step == b.step == total


def test_resume_after_a_crash_between_checkpoints(tmp_path):
    "A run that dies after its periodic checkpoint at step 4 resumes from there to the uninterrupted result."
    whole, whole_history = run(tmp_path / "whole", max_steps=9, ckpt_every=4)

    class Crash(Exception):
        pass

    def crash_at_step_6(record):
        if record["step"] >= 6:
            raise Crash()

    scramble_rng()
    with pytest.raises(Crash):
        train(
            tiny_model(),
            DATA,
            VALID,
            config(tmp_path / "crashed", max_steps=9, ckpt_every=4),
            PAD,
            BOS,
            EOS,
            callback=crash_at_step_6,
        )
    assert Checkpoint.load(tmp_path / "crashed" / "checkpoint.pt").step == 4
    resumed, history = run(tmp_path / "crashed", resume=True, max_steps=9, ckpt_every=4)
    assert_same_params(whole, resumed)
    assert train_records(history) == train_records(whole_history)
    lines = [json.loads(l) for l in (tmp_path / "crashed" / "metrics.jsonl").read_text().splitlines()]
    assert lines == history  # the crashed run's lines after step 4 are gone


def test_resume_needs_the_random_state(tmp_path):
    "Dropout is on: restoring everything but the generators would not give the same run (the test is sensitive)."
    whole, _ = run(tmp_path / "whole", max_steps=6)
    run(tmp_path / "parts", max_steps=3)
    path = tmp_path / "parts" / "checkpoint.pt"
    state = Checkpoint.load(path)
    state.ranks[0]["torch"] = torch.Generator().manual_seed(42).get_state()
    state.save(path)
    resumed, _ = run(tmp_path / "parts", resume=True, max_steps=6)
    assert any(not torch.equal(whole[k], resumed[k]) for k in whole)


@pytest.mark.parametrize("accum_steps", [1, 2])
def test_resume_at_an_epoch_boundary_and_max_epochs_end_cleanly(tmp_path, accum_steps):
    n = batches_per_epoch()
    whole, whole_history = run(tmp_path / "whole", max_steps=None, max_epochs=2, accum_steps=accum_steps)
    assert whole_history[-1]["step"] == 2 * n // accum_steps and "valid_loss" in whole_history[-1]
    first, _ = run(tmp_path / "parts", max_steps=None, max_epochs=1, accum_steps=accum_steps)
    assert Checkpoint.load(tmp_path / "parts" / "checkpoint.pt").step == n // accum_steps
    resumed, _ = run(tmp_path / "parts", resume=True, max_steps=None, max_epochs=2, accum_steps=accum_steps)
    assert_same_params(whole, resumed)
    # resuming a finished run does nothing and ends cleanly
    again, history = run(tmp_path / "parts", resume=True, max_steps=None, max_epochs=2, accum_steps=accum_steps)
    assert_same_params(resumed, again)
    assert Checkpoint.load(tmp_path / "parts" / "checkpoint.pt").step == 2 * n // accum_steps


def test_resume_in_a_fresh_process(tmp_path):
    total, stop_at = 7, 3
    whole, _ = run(tmp_path / "whole", max_steps=total, accum_steps=2)
    run(tmp_path / "parts", max_steps=stop_at, accum_steps=2)
    script = textwrap.dedent(f"""
        import torch
        from test_loop import run
        params, _ = run({str(tmp_path / "parts")!r}, resume=True, max_steps={total}, accum_steps=2)
        torch.save(params, {str(tmp_path / "resumed.pt")!r})
    """)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT / "tests")}
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert_same_params(whole, torch.load(tmp_path / "resumed.pt", weights_only=True))


def test_progress_bar_total(tmp_path, monkeypatch):
    bars = []

    class FakeBar:
        def __init__(self, total=None, initial=0, **kw):
            self.total, self.n = total, initial
            bars.append(self)

        def update(self, k=1):
            self.n += k

        def set_postfix(self, refresh=True, **kw):
            self.postfix = kw

        def close(self):
            pass

    monkeypatch.setattr(loop, "tqdm", FakeBar)
    n = batches_per_epoch()
    train(
        tiny_model(),
        DATA,
        [],
        config(tmp_path / "a", max_steps=None, max_epochs=2, accum_steps=2),
        PAD,
        BOS,
        EOS,
    )
    assert bars[-1].total == 2 * n // 2 == bars[-1].n
    train(tiny_model(), DATA, [], config(tmp_path / "b", max_steps=5, max_epochs=3), PAD, BOS, EOS)
    assert bars[-1].total == 5 == bars[-1].n
    train(
        tiny_model(),
        DATA,
        [],
        config(tmp_path / "b", max_steps=10**6, max_epochs=1),
        PAD,
        BOS,
        EOS,
        resume=True,
    )
    assert bars[-1].total == n and bars[-1].n == n and bars[-1].postfix.keys() == {"loss", "tok_s", "lr"}


def test_time_limit(tmp_path):
    history = train(tiny_model(), DATA, VALID, config(tmp_path, max_steps=50, max_minutes=0), PAD, BOS, EOS)
    assert history[-1]["step"] == 0 and "valid_loss" in history[-1]  # stopped at once, cleanly
    assert Checkpoint.load(tmp_path / "checkpoint.pt").step == 0
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
    assert history[0] == {"step": 0, "precision": precision, "precision_reason": "asked for"}


def test_update_timing_leaves_no_trace():
    "The probes run forward and backward with dropout on, but the run must not notice they happened."
    model, b = tiny_model(dropout=0.3).train(), make_batch(DATA[:8], PAD, BOS, EOS)
    before, rng = params(model), torch.get_rng_state()
    timer = update_timer(model, b, LabelSmoothingLoss(0.1, PAD))
    assert all(timer(bf16) > 0 for bf16 in [True, False] * 4)  # the eight of chapter 23's rule
    assert all(p.grad is None for p in model.parameters()) and torch.equal(rng, torch.get_rng_state())
    assert_same_params(before, params(model))


def test_update_timer_copies_the_model_once_and_only_when_timing(monkeypatch):
    copies, deepcopy = [], loop.copy.deepcopy
    monkeypatch.setattr(loop, "copy", SimpleNamespace(deepcopy=lambda x: copies.append(x) or deepcopy(x)))
    model, b = tiny_model(), make_batch(DATA[:8], PAD, BOS, EOS)
    timer = update_timer(model, b, LabelSmoothingLoss(0.1, PAD))
    assert copies == []  # asking for fp32 or bf16, or a GPU: nothing timed, nothing copied
    timer(True), timer(False), timer(True)
    assert copies == [model]


def fake_measurements(monkeypatch, bf16_seconds, fp32_seconds=1.0, first=None):
    """Replace both probes in the loop: bf16 matrix products are fast, and an update takes bf16_seconds
    in bf16, fp32_seconds in fp32, except the first of each precision: `first` (bf16, fp32) seconds if
    given, as when another process runs beside them. Returns the precisions timed, in order."""
    calls = []

    def timer(model, b, crit):
        def seconds(bf16):
            calls.append(bf16)
            if first and calls.count(bf16) == 1:
                return first[0 if bf16 else 1]
            return bf16_seconds if bf16 else fp32_seconds

        return seconds

    monkeypatch.setattr(loop, "matmul_gflops", FAST_BF16)
    monkeypatch.setattr(loop, "update_timer", timer)
    return calls


@pytest.mark.parametrize("bf16_seconds,expected", [(0.5, "bf16"), (2.0, "fp32")])
def test_auto_precision_is_recorded_and_used(tmp_path, monkeypatch, bf16_seconds, expected):
    fake_measurements(monkeypatch, bf16_seconds)
    model, seen = tiny_model(), []
    model.register_forward_hook(lambda m, args, out: seen.append(out.dtype))
    history = train(model, DATA, VALID, config(tmp_path, max_steps=4, precision="auto"), PAD, BOS, EOS)
    assert history[0]["precision"] == expected and "in bf16" in history[0]["precision_reason"]
    assert json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[0]) == history[0]
    assert Checkpoint.load(tmp_path / "checkpoint.pt").precision == {
        "precision": history[0]["precision"],
        "reason": history[0]["precision_reason"],
    }
    assert set(seen[:4]) == {torch.bfloat16 if expected == "bf16" else torch.float32}  # the training updates


@pytest.mark.parametrize(
    "idle_s, expected",
    [((0.546, 0.992), "bf16"), ((20.0, 0.992), "fp32")],  # a bf16 machine; bf16 updates 20 times slower
)
def test_auto_precision_outlasts_a_busy_start(tmp_path, monkeypatch, idle_s, expected):
    "Issue 49: the first update of each precision measured another process (8.292 s, 7.779 s), not bf16."
    first = (8.292, 7.779) if expected == "bf16" else (0.5, 8.0)  # the first updates say the opposite
    calls = fake_measurements(monkeypatch, *idle_s, first=first)
    history = train(tiny_model(), DATA, [], config(tmp_path, max_steps=2, precision="auto"), PAD, BOS, EOS)
    assert calls == [True, False] * 4
    assert history[0]["step"] == 0 and history[0]["precision"] == expected
    assert history[0]["precision_reason"].startswith(f"{idle_s[0]:.3f} s per update in bf16, 0.992 s in fp32")
    assert "it must save 10% to be chosen" in history[0]["precision_reason"]
    assert Checkpoint.load(tmp_path / "checkpoint.pt").precision == {
        "precision": expected,
        "reason": history[0]["precision_reason"],
    }


def test_resume_keeps_the_precision_unless_asked_otherwise(tmp_path, monkeypatch):
    fake_measurements(monkeypatch, 0.5)  # the first session measures bf16 faster
    train(tiny_model(), DATA, [], config(tmp_path, max_steps=2, precision="auto"), PAD, BOS, EOS)
    fake_measurements(monkeypatch, 2.0)  # the machine would now say fp32
    history = train(tiny_model(), DATA, [], config(tmp_path, max_steps=4, precision="auto"), PAD, BOS, EOS, resume=True)
    assert Checkpoint.load(tmp_path / "checkpoint.pt").precision["precision"] == "bf16"
    assert [r["precision"] for r in history if "precision" in r] == ["bf16"]  # decided once
    history = train(tiny_model(), DATA, [], config(tmp_path, max_steps=6, precision="fp32"), PAD, BOS, EOS, resume=True)
    assert Checkpoint.load(tmp_path / "checkpoint.pt").precision == {
        "precision": "fp32",
        "reason": "asked for",
    }
    assert [r["precision"] for r in history if "precision" in r] == [
        "bf16",
        "fp32",
    ]  # the change is on record


class Interrupt(Exception):
    pass


def planned_run(out_folder, monkeypatch, resume=False, stop_at=None, tick=0.25):
    monkeypatch.setattr(machine, "time", FakeClock(tick))
    if resume:
        scramble_rng()
    model = tiny_model(seed=123 if resume else 0)
    cfg = config(
        out_folder,
        max_minutes=0.5,
        fit_to_time=True,
        plan_after=8,
        warmup=10,
        ckpt_every=5,
        log_every=1,
        eval_every=None,
    )

    def interrupt(record):  # Ctrl-C in the middle of the run
        if stop_at and record.get("step") == stop_at and "train_loss" in record:
            raise Interrupt

    try:
        history = train(model, DATA, VALID, cfg, PAD, BOS, EOS, resume=resume, callback=interrupt)
    except Interrupt:
        return None, None
    return model, history


def test_planned_run_ends_at_its_plan_with_the_rate_at_zero(tmp_path, monkeypatch):
    model, history = planned_run(tmp_path, monkeypatch)
    plan = [r["plan"] for r in history if "plan" in r]
    assert len(plan) == 1 and plan[0]["fixed_at"] == 8  # fixed once, before warmup (10) ends
    steps = plan[0]["steps"]
    assert steps == plan_updates(30, plan[0]["spent_s"], 8, plan[0]["seconds_per_update"]) and 10 < steps < 500
    lrs = [r["lr"] for r in history if "train_loss" in r]
    assert history[-1]["step"] == steps and len(lrs) == steps
    assert lrs == pytest.approx([linear_decay_lr(s, 16, 10, steps, 1.0) for s in range(1, steps + 1)])
    assert lrs[-1] == pytest.approx(max(lrs) / (steps + 1 - 10))  # one step above zero: decayed, not cut off
    assert Checkpoint.load(tmp_path / "checkpoint.pt").plan == plan[0]
    _, slower = planned_run(tmp_path / "slow", monkeypatch, tick=0.5)  # every update takes twice the time
    slow = next(r["plan"] for r in slower if "plan" in r)
    assert slow["spent_s"] == pytest.approx(2 * plan[0]["spent_s"])
    assert slow["seconds_per_update"] == pytest.approx(2 * plan[0]["seconds_per_update"])
    assert slow["steps"] == plan_updates(30, 2 * plan[0]["spent_s"], 8, 2 * plan[0]["seconds_per_update"]) < steps
    assert slower[-1]["step"] == slow["steps"]


def test_planned_run_on_a_fast_machine_stops_at_max_steps_with_the_rate_at_zero(tmp_path, monkeypatch):
    "The cpu preset on a GPU: the time would allow more updates than max_steps; the plan, and the decay, end there."
    monkeypatch.setattr(machine, "time", FakeClock(0.25))
    cfg = config(
        tmp_path,
        max_minutes=0.5,
        fit_to_time=True,
        plan_after=8,
        warmup=10,
        max_steps=20,
        ckpt_every=None,
        log_every=1,
        eval_every=None,
    )
    history = train(tiny_model(), DATA, VALID, cfg, PAD, BOS, EOS)
    plan = next(r["plan"] for r in history if "plan" in r)
    assert plan["steps"] == 20 < plan_updates(30, plan["spent_s"], 8, plan["seconds_per_update"])
    lrs = [r["lr"] for r in history if "train_loss" in r]
    assert history[-1]["step"] == 20 and lrs == pytest.approx(
        [linear_decay_lr(s, 16, 10, 20, 1.0) for s in range(1, 21)]
    )


def test_planned_run_resumes_exactly_plan_included(tmp_path, monkeypatch):
    whole, whole_history = planned_run(tmp_path / "whole", monkeypatch)
    assert planned_run(tmp_path / "parts", monkeypatch, stop_at=17) == (None, None)  # killed after update 17
    assert Checkpoint.load(tmp_path / "parts" / "checkpoint.pt").step == 15  # the last checkpoint
    resumed, resumed_history = planned_run(tmp_path / "parts", monkeypatch, resume=True)
    assert_same_params(params(whole), params(resumed))
    assert train_records(whole_history) == train_records(resumed_history)
    plans = [r["plan"] for r in resumed_history if "plan" in r]
    assert plans == [r["plan"] for r in whole_history if "plan" in r] and len(plans) == 1


def test_fit_to_time_needs_a_time_limit(tmp_path):
    with pytest.raises(ValueError, match="max_minutes"):
        train(tiny_model(), DATA, [], config(tmp_path, fit_to_time=True), PAD, BOS, EOS)
    with pytest.raises(ValueError, match="plans its own decay_steps"):
        train(
            tiny_model(),
            DATA,
            [],
            config(tmp_path, fit_to_time=True, max_minutes=1, decay_steps=50),
            PAD,
            BOS,
            EOS,
        )


def test_training_reduces_the_loss(tmp_path):
    model = tiny_model(dropout=0.0)
    before = validation_loss(model, VALID, PAD, BOS, EOS)["valid_loss"]
    history = train(model, DATA, VALID, config(tmp_path, max_steps=40, warmup=10, lr_factor=2.0), PAD, BOS, EOS)
    assert history[-1]["valid_loss"] < 0.8 * before


def test_training_on_a_cpu_draws_cheap_dropout_masks(tmp_path):
    model = tiny_model(dropout=0.1)
    rates = [m.p for m in model.modules() if isinstance(m, nn.Dropout)]
    train(model, DATA, VALID, config(tmp_path, max_steps=2), PAD, BOS, EOS)
    assert [m.p for m in model.modules() if isinstance(m, CheapDropout)] == rates and rates


@pytest.mark.e2e  # compiling with inductor takes minutes on a CPU: not in `make quicktest`
@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="torch.compile on a CPU needs a C compiler")
def test_compiled_training_matches_eager(tmp_path):
    "TrainConfig.compile: the same run under torch.compile (as on a GPU) gives the same losses, to rounding."
    # sentences of one length, so that every batch has one shape: inductor compiles once, not once per shape
    data, histories = reverse_task(96, vocab_size=VOCAB, min_len=5, max_len=5, seed=0), []
    for compiled in (False, True):
        model = tiny_model(dropout=0.0)
        histories.append(
            train(
                model,
                data,
                VALID,
                config(tmp_path / str(compiled), max_steps=4, log_every=1, compile=compiled),
                PAD,
                BOS,
                EOS,
            )
        )
    eager, compiled = ([r["train_loss"] for r in h if "train_loss" in r] for h in histories)
    assert len(eager) == 4 and compiled == pytest.approx(eager, rel=1e-4)
    assert histories[1][-1]["valid_loss"] == pytest.approx(histories[0][-1]["valid_loss"], rel=1e-4)


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
    monkeypatch.setattr(machine, "time", DriftingClock(0.25, 1.002))
    cfg = config(
        tmp_path,
        max_minutes=0.5,
        fit_to_time=True,
        plan_after=8,
        warmup=10,
        ckpt_every=None,
        log_every=1,
        eval_every=10,
    )
    history = train(tiny_model(), DATA, VALID, cfg, PAD, BOS, EOS)
    plans = [r["plan"] for r in history if "plan" in r]
    assert len(plans) > 2 and plans[0]["fixed_at"] == 8 and [p["fixed_at"] for p in plans[1:3]] == [10, 20]
    assert plans[-1]["steps"] < plans[0]["steps"]  # it slowed down, so it plans fewer
    steps = plans[-1]["steps"]
    assert history[-1]["step"] == steps  # it ends where the last plan said ...
    lrs = [r["lr"] for r in history if "train_loss" in r]
    assert len(lrs) == steps and 0 < lrs[-1] < 0.1 * max(lrs)  # ... with the rate nearly at zero
    assert Checkpoint.load(tmp_path / "checkpoint.pt").plan == plans[-1]


def test_a_later_plan_may_be_longer_than_the_first(tmp_path, monkeypatch):
    "Plans made at validations are capped by max_steps and the epochs, not by the earlier plan."
    monkeypatch.setattr(machine, "time", DriftingClock(0.25, 0.998))  # faster and faster
    cfg = config(
        tmp_path,
        max_minutes=0.5,
        fit_to_time=True,
        plan_after=8,
        warmup=10,
        ckpt_every=None,
        log_every=1,
        eval_every=10,
        max_epochs=1000,
    )
    history = train(tiny_model(), DATA, VALID, cfg, PAD, BOS, EOS)
    plans = [r["plan"]["steps"] for r in history if "plan" in r]
    assert plans[-1] > plans[0] and history[-1]["step"] == plans[-1]
