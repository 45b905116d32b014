"""tools/bench_training.py: it runs, times every variant, and rejects bad arguments.

Its numbers are measurements, not checked here (a shared machine makes timings noisy); what
is checked is that each variant really trains in its own way: bf16 variants compute in
bfloat16, plain-attention variants do not call PyTorch's fused kernel, dropout-0 variants draw
no random numbers, and the variants without dropout in the FFN have rate 0 there only.
"""
import json
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import bench_training  # noqa: E402
from transformer.encoder import FeedForward  # noqa: E402

SMALL = ["--preset", "tiny", "--vocab", "50", "--tokens", "40", "--src-len", "5", "--tgt-len", "6",
         "--steps", "1", "--warmup", "0", "--rounds", "1", "--threads", "1"]


def test_every_variant_is_timed_and_written(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench_training.main(SMALL + ["--json", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    assert len(results) == 12 and len({r["variant"] for r in results}) == 12
    assert results[0]["variant"] == "fp32, fused attention, dropout 0.1" and results[0]["ratio"] == 1.0
    assert all(r["tokens_per_s"] > 0 for r in results)
    printed = capsys.readouterr().out
    assert all(r["variant"] in printed for r in results)


def test_variants_differ_in_what_they_say(monkeypatch):
    "Record, per variant: the dtype of the logits, whether the fused kernel ran, whether random numbers were drawn."
    seen, sdpa, forward = [], F.scaled_dot_product_attention, bench_training.Transformer.forward
    calls = []
    def fused(*a, **k):
        calls.append(1)
        return sdpa(*a, **k)
    def spy(self, *a, **k):
        calls.clear()
        rng = torch.get_rng_state()
        logits = forward(self, *a, **k)
        ffn = {m.dropout.p for m in self.modules() if isinstance(m, FeedForward)}
        rest = {m.p for name, m in self.named_modules() if isinstance(m, torch.nn.Dropout) and ".ffn." not in name}
        seen.append((logits.dtype, bool(calls), not torch.equal(rng, torch.get_rng_state()), ffn, rest))
        return logits
    monkeypatch.setattr(F, "scaled_dot_product_attention", fused)
    monkeypatch.setattr(bench_training.Transformer, "forward", spy)
    bench_training.main(SMALL)
    expected = [(torch.bfloat16 if bf16 else torch.float32, fused, dropout > 0,
                 {dropout if ffn_dropout is None else ffn_dropout}, {dropout})
                for _, bf16, fused, dropout, ffn_dropout in bench_training.variants(0.1)]
    assert sum(ffn == {0.0} and rest == {0.1} for *_, ffn, rest in seen) == 4   # bf16/fp32 x fused/plain
    assert seen == expected


@pytest.mark.parametrize("args", [["--steps", "0"], ["--tokens", "3"], ["--preset", "huge"], ["--warmup", "-1"]])
def test_bad_arguments_exit_with_a_usage_error(args, capsys):
    with pytest.raises(SystemExit) as e:
        bench_training.main(args)
    assert e.value.code == 2 and "error:" in capsys.readouterr().err
