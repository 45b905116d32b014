"""Helpers shared by test_training.py, test_machine.py and test_loop.py: tiny models, toy data, configs."""

import random
from pathlib import Path

import pytest
import torch

from transformer.model import Transformer, TransformerConfig
from transformer.presets import TrainConfig
from transformer.training import BOS, EOS, PAD, UNK, TokenBatchSampler, reverse_task  # noqa: F401 (the course's special ids)

ROOT = Path(__file__).resolve().parents[1]

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
    return Transformer(
        TransformerConfig(VOCAB, VOCAB, d_model=d_model, n_layers=1, h=2, d_ff=32, dropout=dropout, max_len=32)
    )


DATA = reverse_task(120, vocab_size=VOCAB, min_len=1, max_len=6, seed=0)
VALID = reverse_task(20, vocab_size=VOCAB, min_len=1, max_len=6, seed=1)


def config(out_folder, **kw):
    args = dict(
        max_tokens=48,
        max_epochs=50,
        warmup=5,
        eval_every=None,
        ckpt_every=None,
        log_every=2,
        precision="fp32",
        out_folder=str(out_folder),
        progress=False,
        device="cpu",
    )
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


FAST_BF16 = lambda dtype: 2594.0 if dtype == torch.bfloat16 else 278.0  # GFLOP/s with AMX (issue 12's Xeon)
SLOW_BF16 = lambda dtype: 1.2 if dtype == torch.bfloat16 else 178.0  # the same Xeon restricted to AVX2


class FakeClock:
    "Stands in for the time module inside training: every reading is `tick` seconds after the previous one."

    def __init__(self, tick):
        self.now, self.tick = 1000.0, tick

    def time(self):
        self.now += self.tick
        return self.now

    perf_counter = time
