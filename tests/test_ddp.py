"""The training loop under DistributedDataParallel: two CPU processes (gloo) started with torch.distributed.run.

tests/ddp_worker.py runs a few tiny trainings in both processes; the tests compare what the two ranks end with,
with each other, with a resumed two-process run, and with one process accumulating the same batches.
"""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch.testing import assert_close

import transformer
from transformer.checkpoint import Checkpoint
from transformer.loop import train

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "tests" / "ddp_worker.py"
import ddp_worker  # noqa: E402  (tests/ is on the path, as for every test file)

pytestmark = pytest.mark.e2e  # real multi-process training runs: slow


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ddp_runs(tmp_path_factory):
    "Run the worker on 2 processes once; returns the output folder."
    out = tmp_path_factory.mktemp("ddp")
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node=2",
        f"--master_port={free_port()}",
        str(WORKER),
        str(out),
    ]
    package_root = Path(transformer.__file__).resolve().parents[1]  # the package this test process imported
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([str(package_root), str(ROOT)]),
    }
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, f"torch.distributed.run failed:\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}"
    return out


def result(out, name, rank):
    return torch.load(out / f"{name}_rank{rank}.pt", weights_only=True)


def single_process(out_folder, dropout, **kw):
    "The reference: the same model and data in this process, without DDP. Returns (parameters, gradients per step)."
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    grads, handle = ddp_worker.record_gradients()
    try:
        model = ddp_worker.tiny_model(dropout=dropout)
        train(
            model,
            ddp_worker.DATA,
            [],
            ddp_worker.run_config(out_folder, **kw),
            ddp_worker.PAD,
            ddp_worker.BOS,
            ddp_worker.EOS,
        )
    finally:
        handle.remove()
        torch.set_num_threads(before)
    return model.state_dict(), grads


@pytest.mark.parametrize("name", list(ddp_worker.RUNS))
def test_both_ranks_end_with_identical_parameters(ddp_runs, name):
    a, b = result(ddp_runs, name, 0)["params"], result(ddp_runs, name, 1)["params"]
    for k in a:
        assert torch.equal(a[k], b[k]), k
    start = ddp_worker.tiny_model(dropout=0.0).state_dict()
    assert any(not torch.equal(a[k], start[k]) for k in a)  # and they did train


def test_ranks_use_different_dropout_and_rank_0_writes(ddp_runs):
    state = Checkpoint.load(ddp_runs / "whole" / "checkpoint.pt", resumable=True)
    assert len(state.ranks) == 2
    assert not torch.equal(state.ranks[0]["torch"], state.ranks[1]["torch"])
    assert sorted(p.name for p in (ddp_runs / "whole").iterdir()) == ["checkpoint.pt", "metrics.jsonl"]
    h0, h1 = result(ddp_runs, "whole", 0)["history"], result(ddp_runs, "whole", 1)["history"]
    train0 = [r for r in h0 if "train_loss" in r]
    assert [r["train_loss"] for r in train0] == [r["train_loss"] for r in h1 if "train_loss" in r]  # summed over ranks
    assert any("valid_loss" in r for r in h0) and not any("valid_loss" in r for r in h1)  # rank 0 validates


def test_resumed_ddp_run_equals_uninterrupted(ddp_runs):
    for rank in range(2):
        whole, resumed = result(ddp_runs, "whole", rank), result(ddp_runs, "resumed", rank)
        for k in whole["params"]:
            assert torch.equal(whole["params"][k], resumed["params"][k]), (rank, k)
    strip = lambda h: [(r["step"], r["lr"], r["train_loss"]) for r in h if "train_loss" in r]
    assert strip(result(ddp_runs, "whole", 0)["history"]) == strip(result(ddp_runs, "resumed", 0)["history"])


@pytest.mark.parametrize("name,accum_steps", [("nodrop", 2), ("nodrop_accum", 4)])
def test_two_processes_equal_one_process_accumulating(ddp_runs, tmp_path, name, accum_steps):
    "Rank r takes batches r, r+2, ...: two ranks = one process accumulating their batches (dropout off)."
    kw = dict(ddp_worker.RUNS[name][1])
    kw["accum_steps"] = accum_steps
    reference, reference_grads = single_process(tmp_path, dropout=0.0, **kw)
    ddp_grads = result(ddp_runs, name, 0)["grads"]
    assert len(ddp_grads) == len(reference_grads) == kw["max_steps"]
    for step_ddp, step_ref in zip(ddp_grads, reference_grads):  # the gradient of every update, all-reduced
        for g_ddp, g_ref in zip(step_ddp, step_ref):
            assert_close(g_ddp, g_ref, rtol=1e-4, atol=1e-6)
    ddp = result(ddp_runs, name, 0)["params"]
    for k in reference:
        # A key bias adds the same number to all scores of a query, which the softmax cancels: its true gradient
        # is 0, and Adam turns the round-off left in its place into full-size steps of random sign. Skip it.
        if k.endswith("w_k.bias"):
            continue
        assert_close(ddp[k], reference[k], rtol=1e-4, atol=1e-6)
