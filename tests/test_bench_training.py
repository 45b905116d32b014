"""tools/bench/training.py (python -m tools.bench.training): it runs, times every variant, and rejects bad arguments.

Its timings are measurements, not checked here (a shared machine makes them noisy); what is
checked is that each row trains the way its name says: the model class, the loss, the places
of dropout, the attention kernel and the precision; and that torch.nn.Transformer's model is
the course's size (the same matrix-product work per update).
"""

import json

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from tools.bench import training as bench_training
from transformer.encoder import FeedForward
from transformer.fused_loss import FusedLabelSmoothingLoss
from transformer.machine import CheapDropout
from transformer.model import Transformer

SMALL = [
    "--preset",
    "tiny",
    "--vocab",
    "50",
    "--tokens",
    "40",
    "--src-len",
    "5",
    "--tgt-len",
    "6",
    "--steps",
    "1",
    "--warmup",
    "0",
    "--rounds",
    "1",
    "--threads",
    "1",
]


@pytest.mark.parametrize(
    "bf16,more,rows",
    [
        ("--no-bf16", [], 8),
        ("--bf16", [], 11),
        ("--no-bf16", ["--out-vocab", "20"], 9),
        ("--bf16", ["--out-vocab", "20"], 13),
    ],
)
def test_every_variant_is_timed_and_written(tmp_path, capsys, bf16, more, rows):
    out = tmp_path / "bench.json"
    assert bench_training.main(SMALL + [bf16, *more, "--json", str(out)]) == 0
    written = json.loads(out.read_text())
    results = written["results"]
    assert len(results) == rows and len({r["variant"] for r in results}) == rows
    assert results[0]["variant"] == "fp32, torch.nn.Transformer" and results[0]["ratio"] == 1.0
    assert all(
        r["tokens_per_s"] > 0 and r["gflop_per_update"] > 0 and 0 < r["share_of_peak"] and r["first_update_s"] > 0
        for r in results
    )
    assert written["fp32_peak_gflop_s"] > 0 and written["cpu_capability"]
    assert (rows > 9) == any(r["variant"].startswith("bf16") for r in results)
    assert bool(more) == any("output layer over 20 ids" in r["variant"] for r in results)
    printed = capsys.readouterr().out
    assert all(r["variant"] in printed for r in results) and "peak measured here" in printed


def test_both_models_do_the_same_matrix_work(tmp_path):
    "Same sizes: the counted matrix-product FLOPs of an update agree within 2% (the course's fp32 row vs torch's)."
    out = tmp_path / "bench.json"
    bench_training.main(
        [
            "--preset",
            "cpu",
            "--vocab",
            "300",
            "--tokens",
            "60",
            "--src-len",
            "6",
            "--tgt-len",
            "6",
            "--steps",
            "1",
            "--warmup",
            "0",
            "--rounds",
            "1",
            "--threads",
            "1",
            "--no-bf16",
            "--json",
            str(out),
        ]
    )
    by_name = {r["variant"]: r["gflop_per_update"] for r in json.loads(out.read_text())["results"]}
    torch_flops, course_flops = (
        by_name["fp32, torch.nn.Transformer"],
        by_name["fp32, course (cpu preset, fused loss)"],
    )
    assert course_flops == pytest.approx(torch_flops, rel=0.02)


def test_rows_train_the_way_their_names_say(monkeypatch):
    "Per update: the model's class, the logits' dtype, the fused kernel, the dropout rates, the loss."
    seen, sdpa_calls, cheap_rows, widths = {}, [], [], {}
    names = [name for name, *_ in bench_training.variants({"dropout": 0.1}, True, False, 20)]
    sdpa = F.scaled_dot_product_attention
    monkeypatch.setattr(F, "scaled_dot_product_attention", lambda *a, **k: sdpa_calls.append(1) or sdpa(*a, **k))

    def spy_build(kind, change, fused, model_kw, vocab):
        model, loss = build(kind, change, fused, model_kw, vocab)
        row = len(seen)  # models are built in the order of the rows
        if any(isinstance(m, CheapDropout) for m in model.modules()):
            cheap_rows.append(names[row])
        assert not any(isinstance(m, nn.Dropout) for m in model.modules()) or "cheap" not in names[row]
        seen[row] = None
        forward = model.forward

        def spied(*a, **k):
            sdpa_calls.clear()
            logits = forward(*a, **k)
            if isinstance(model, Transformer):
                ffn = {m.dropout.p for m in model.modules() if isinstance(m, FeedForward)}
                attn = {m.dropout for m in model.modules() if hasattr(m, "split_heads")}
            else:
                layer = model.stacks.encoder.layers[0]
                ffn, attn = {layer.dropout.p}, {layer.self_attn.dropout}
            fused_loss = isinstance(loss, FusedLabelSmoothingLoss)
            seen[row] = seen[row] or (
                type(model).__name__,
                logits.dtype,
                bool(sdpa_calls),
                ffn,
                attn,
                fused_loss,
            )
            widths[names[row]] = logits.size(-1)
            return logits

        model.forward = spied
        return model, loss

    build = bench_training.build
    monkeypatch.setattr(bench_training, "build", spy_build)
    bench_training.main(SMALL + ["--bf16", "--out-vocab", "20"])
    by_row = dict(zip(names, seen.values()))
    assert by_row["fp32, torch.nn.Transformer"] == (
        "TorchTransformer",
        torch.float32,
        True,
        {0.1},
        {0.1},
        False,
    )
    assert by_row["fp32, torch.nn.Transformer, dropout 0"][3:5] == ({0.0}, {0.0})
    assert by_row["fp32, course (cpu preset, fused loss)"] == (
        "Transformer",
        torch.float32,
        False,
        {0.1},
        {0.0},
        True,
    )
    assert by_row["fp32, course, readable loss"][5] is False
    assert cheap_rows == [
        "fp32, course, cheap dropout masks (the loop on a CPU)",
        "fp32, course, cheap masks, output layer over 20 ids",
        "bf16, course, cheap dropout masks (the loop on a CPU)",
        "bf16, course, cheap masks, output layer over 20 ids",
    ]
    assert {w for name, w in widths.items() if "over 20 ids" in name} == {20}  # --vocab 50 elsewhere
    assert {w for name, w in widths.items() if "over 20 ids" not in name} == {50}
    assert by_row["fp32, course, fused attention kernel"][2] is True
    assert by_row["fp32, course, dropout where nn.Transformer has it"][3:5] == ({0.1}, {0.1})
    assert by_row["fp32, course, dropout 0"][3] == {0.0}
    assert (
        by_row["bf16, torch.nn.Transformer"][1] == by_row["bf16, course (cpu preset, fused loss)"][1] == torch.bfloat16
    )


def test_cpu_preset_rows_take_the_presets_dropout(monkeypatch):
    """With the cpu preset, the course's headline row has no FFN dropout (the preset's ffn_dropout 0.0), and the
    torch.nn.Transformer row the preset's LayerNorm placement."""
    rows = list(bench_training.variants(bench_training.PRESETS["cpu"]["model"], False, True))
    assert rows[-1][0] == "fp32, course under torch.compile" and rows[-1][5] is True
    model, _ = bench_training.build("course", {}, True, bench_training.PRESETS["cpu"]["model"], 100)
    assert {m.dropout.p for m in model.modules() if isinstance(m, FeedForward)} == {0.0}
    # the torch.nn.Transformer row puts its LayerNorms where the preset does (Pre-LN or Post-LN)
    preset = bench_training.PRESETS["cpu"]["model"]
    reference, _ = bench_training.build("torch", {"dropout": 0.1}, False, preset, 100)
    layers = [*reference.stacks.encoder.layers, *reference.stacks.decoder.layers]
    assert {layer.norm_first for layer in layers} == {preset.get("pre_norm", False)}


@pytest.mark.parametrize(
    "args",
    [
        ["--steps", "0"],
        ["--tokens", "3"],
        ["--preset", "huge"],
        ["--warmup", "-1"],
        ["--bf16", "--no-bf16"],
        ["--out-vocab", "4"],
        ["--vocab", "50", "--out-vocab", "51"],
    ],
)
def test_bad_arguments_exit_with_a_usage_error(args, capsys):
    with pytest.raises(SystemExit) as e:
        bench_training.main(args)
    assert e.value.code == 2 and "error:" in capsys.readouterr().err
