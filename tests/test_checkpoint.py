"""Tests for transformer.checkpoint (chapter 14): the one checkpoint format, its version, atomic writes, one-line
errors, the resumable sampler, snapshots and their average."""

from dataclasses import asdict, fields

import pytest
import torch
from torch import nn
from training_helpers import random_lengths

import transformer.checkpoint as checkpoint
from transformer.checkpoint import FORMAT, Checkpoint, FormatError
from transformer.model import Transformer, TransformerConfig
from transformer.sampler import ResumableSampler
from transformer.snapshots import Snapshots
from transformer.training import TokenBatchSampler, average_weights


def small_model(seed=0):
    torch.manual_seed(seed)
    return Transformer(TransformerConfig(12, 12, d_model=8, n_layers=1, h=2, d_ff=16))


def a_run(model):
    "A Checkpoint as a run writes it, every field filled."
    return Checkpoint(
        model.state_dict(),
        asdict(model.cfg),
        {"max_steps": 3},
        step=3,
        elapsed_s=1.5,
        precision={"precision": "fp32", "reason": "asked for"},
        plan={"steps": 9},
        optimizer={"state": {}, "param_groups": []},
        sampler={"epoch": 0, "position": 2},
        ranks=[{"log_sums": [0.0, 0]}],
        history=[{"step": 3, "train_loss": 2.0}],
        pipeline={"kind": "bpe"},
        preset="tiny",
        options={"vocab": "bpe"},
        command="transformer-train",
        hardware="a CPU",
        averaged=None,
    )


def test_round_trip_keeps_every_field(tmp_path):
    model = small_model()
    run = a_run(model)
    run.save(tmp_path / "sub" / "ck.pt")
    back = Checkpoint.load(tmp_path / "sub" / "ck.pt", resumable=True)
    for f in fields(Checkpoint):
        if f.name != "model":
            assert getattr(back, f.name) == getattr(run, f.name), f.name
    assert all(torch.equal(back.model[k], v) for k, v in model.state_dict().items())
    raw = torch.load(tmp_path / "sub" / "ck.pt", weights_only=True)  # the file's keys are the fields, and format
    assert set(raw) == {f.name for f in fields(Checkpoint)} | {"format"} and raw["format"] == FORMAT
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["ck.pt"]


def test_save_is_atomic(tmp_path, monkeypatch):
    path, model = tmp_path / "ck.pt", small_model()
    Checkpoint(model.state_dict(), asdict(model.cfg), step=1).save(path)
    real_save = torch.save

    def dies_halfway(obj, f, *args, **kw):
        f.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", dies_halfway)
    with pytest.raises(OSError, match="disk full"):
        Checkpoint(model.state_dict(), asdict(model.cfg), step=2).save(path)
    monkeypatch.setattr(torch, "save", real_save)
    assert Checkpoint.load(path).step == 1
    assert [p.name for p in tmp_path.iterdir()] == ["ck.pt"]  # no temporary file left behind


def one_line_error(path, **kw):
    with pytest.raises(FormatError) as e:
        Checkpoint.load(path, **kw)
    message = str(e.value)
    assert "\n" not in message and path.name in message
    return message


def test_missing_corrupt_foreign_and_old_files(tmp_path):
    model = small_model()
    assert "no checkpoint at" in one_line_error(tmp_path / "nothing.pt")
    (tmp_path / "garbage.pt").write_bytes(b"\x00\x01 certainly not a checkpoint")
    assert "corrupt or unreadable" in one_line_error(tmp_path / "garbage.pt")
    a_run(model).save(tmp_path / "good.pt")
    data = (tmp_path / "good.pt").read_bytes()
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    one_line_error(tmp_path / "truncated.pt")
    torch.save([1, 2, 3], tmp_path / "list.pt")
    assert "not a dict" in one_line_error(tmp_path / "list.pt")
    torch.save({"obj": nn.Linear(2, 2)}, tmp_path / "pickled_module.pt")  # needs full unpickling
    one_line_error(tmp_path / "pickled_module.pt")
    (tmp_path / "a_directory.pt").mkdir()
    one_line_error(tmp_path / "a_directory.pt")
    # another program's file, and this course's format 1 (keys under "extra", no version)
    torch.save({"state_dict": model.state_dict(), "epoch": 3}, tmp_path / "other.pt")
    assert "no format version" in one_line_error(tmp_path / "other.pt")
    old = {
        "model": model.state_dict(),
        "model_config": asdict(model.cfg),
        "extra": {"pipeline": {}},
        "step": 3,
    }
    torch.save(old, tmp_path / "old.pt")
    assert "no format version" in one_line_error(tmp_path / "old.pt")
    torch.save({**old, "format": FORMAT + 1}, tmp_path / "newer.pt")
    assert f"format {FORMAT + 1}" in one_line_error(tmp_path / "newer.pt")
    torch.save({"format": FORMAT, "model": model.state_dict()}, tmp_path / "half.pt")
    assert "model_config" in one_line_error(tmp_path / "half.pt")
    torch.save({"format": FORMAT, "model": {}, "model_config": {}, "extra": {}}, tmp_path / "unknown.pt")
    assert "extra" in one_line_error(tmp_path / "unknown.pt")


def test_only_a_run_can_be_resumed(tmp_path):
    model = small_model()
    run = a_run(model)
    run.without_training_state().save(tmp_path / "averaged.pt")
    Checkpoint(model.state_dict(), asdict(model.cfg), step=3).save(tmp_path / "snapshot.pt")
    for name in ("averaged.pt", "snapshot.pt"):
        assert Checkpoint.load(tmp_path / name).step == 3  # readable for translating
        message = one_line_error(tmp_path / name, resumable=True)
        assert "optimizer" in message and "not resumable" in message
    kept = Checkpoint.load(tmp_path / "averaged.pt")
    assert kept.optimizer is kept.sampler is kept.ranks is kept.history is None
    assert (kept.plan, kept.pipeline, kept.command) == (run.plan, run.pipeline, run.command)


def epoch(sampler):
    return [list(b) for b in sampler]


def test_sampler_resumes_mid_epoch():
    src, tgt = random_lengths()
    reference = epoch(TokenBatchSampler(src, tgt, 200, seed=5))  # chapter 7's sampler, uninterrupted
    s = ResumableSampler(src, tgt, 200, seed=5)
    it = iter(s)
    seen = [next(it) for _ in range(4)]
    state = s.state_dict()
    assert state == {"epoch": 0, "position": 4, "seed": 5}
    resumed = ResumableSampler(src, tgt, 200, seed=0)  # the seed comes from the state
    resumed.load_state_dict(state)
    rest = epoch(resumed)
    assert seen + rest == reference
    assert resumed.state_dict() == {"epoch": 1, "position": 0, "seed": 5}
    # the epoch after the resumed one equals the uninterrupted sampler's second epoch
    uninterrupted = TokenBatchSampler(src, tgt, 200, seed=5)
    epoch(uninterrupted)
    assert epoch(resumed) == epoch(uninterrupted)


def test_a_finished_epoch_moves_the_resumable_sampler_on():
    src, tgt = random_lengths(seed=2)
    s = ResumableSampler(src, tgt, 150, seed=1)
    first = epoch(s)
    assert s.state_dict() == {"epoch": 1, "position": 0, "seed": 1}
    assert first == TokenBatchSampler(src, tgt, 150, seed=1).batches()  # chapter 7's batches
    second = epoch(s)
    assert second != first
    fresh = ResumableSampler(src, tgt, 150, seed=1)
    fresh.load_state_dict({"epoch": 1, "position": 0, "seed": 1})
    assert epoch(fresh) == second


def test_average_weights_against_torch_mean():
    torch.manual_seed(0)
    states = [{"w": torch.randn(3, 4), "b": torch.randn(4), "n": torch.tensor(i)} for i in range(5)]
    mean = average_weights(states)
    for k in ("w", "b"):
        torch.testing.assert_close(mean[k], torch.stack([s[k] for s in states]).mean(0))
    assert mean["n"].item() == 4  # not floating point: the last state's
    same = average_weights([states[0]] * 3)
    torch.testing.assert_close(same["w"], states[0]["w"])


def test_snapshots_keep_and_average(tmp_path):
    model = small_model()
    snaps = Snapshots(model, tmp_path / "snapshots", every=10, last=3, keep=4)
    for step in range(10, 71, 5):  # every 5 updates a record; a snapshot only every 10
        model.load_state_dict({k: torch.full_like(v, step) for k, v in model.state_dict().items()})
        snaps({"step": step, "train_loss": 1.0})
        snaps({"step": step, "valid_loss": 1.0})  # not a training record: ignored
    names = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    assert names == [f"step{s:08d}.pt" for s in (40, 50, 60, 70)]
    a_run(model).save(tmp_path / "checkpoint.pt")
    assert snaps.write_average(tmp_path / "checkpoint.pt", tmp_path / "averaged.pt") == 3
    avg = Checkpoint.load(tmp_path / "averaged.pt")
    assert all(t.eq(60).all() for t in avg.model.values())  # (50 + 60 + 70) / 3
    assert avg.averaged == ["step00000050", "step00000060", "step00000070"] and avg.optimizer is None
    assert Snapshots(model, tmp_path / "none", 10, 3).write_average(tmp_path / "checkpoint.pt", tmp_path / "x.pt") == 0
    assert not (tmp_path / "x.pt").exists()


def test_the_format_is_defined_in_one_module():
    "No other module of the package spells a checkpoint's keys as strings or calls torch.save / torch.load."
    from pathlib import Path

    keys = {f.name for f in fields(Checkpoint)} - {
        "model",
        "step",
        "plan",
        "precision",
        "history",
        "options",
        "command",
        "pipeline",
        "preset",
        "hardware",
        "ranks",
        "elapsed_s",
        "sampler",
        "optimizer",
    }
    package = Path(checkpoint.__file__).parent
    for module in package.glob("*.py"):
        if module.name in ("checkpoint.py", "_modidx.py"):
            continue
        text = module.read_text()
        assert "torch.save(" not in text and "torch.load(" not in text, module.name
        for key in keys:  # the keys no other structure of the package shares
            assert f'"{key}"' not in text and f"'{key}'" not in text, (module.name, key)
