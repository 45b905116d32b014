"""Time training updates of the course's model against torch.nn.Transformer of the same size (chapter 10).

One update = forward, label-smoothed loss, backward, Adam step: what transformer-train repeats.
The batches are random token ids shaped like Multi30k's (sentences of --src-len and --tgt-len
tokens, as many as fit in --tokens per side), the same batches for every variant, so that only
the variant changes. Each variant makes --warmup untimed updates, then --steps timed ones, and
the variants take turns (--rounds rounds) so that a busy moment of a shared machine does not
fall on one variant only; the median round is reported.

The variants share the preset's sizes, embeddings, positional encoding and tied output layer;
they differ in the encoder and decoder stacks, the loss, the dropout and the arithmetic:

  torch.nn.Transformer    PyTorch's own stacks, as a PyTorch user would train them: dropout
                          0.1 where nn.Transformer puts it (sublayer outputs, inside the FFNs,
                          attention weights) and F.cross_entropy with label_smoothing 0.1
  course                  the cpu preset's model and the training loop's loss: dropout on
                          sublayer outputs and embeddings, none inside the FFNs (the paper's
                          places), plain attention, FusedLabelSmoothingLoss (chapter 15)
  ...with one change      chapter 23's cheap dropout masks (what the loop uses on a CPU), the
                          readable loss, the fused attention kernel, nn.Transformer's dropout
                          places, no dropout at all (for both models), torch.compile
  --out-vocab N           adds the cheap masks with an output layer that scores only N ids
                          (chapter 9.1; the presets' way: the cpu preset's English side uses
                          4,182 of its 8,000 sub-words); the targets of every row are then
                          below N

Each row gives target tokens per second, the ratio to torch.nn.Transformer in fp32 (the first
row), the seconds of the first update (torch.compile compiles in it), and the matrix-product
work an update does (counted by torch.utils.flop_counter) per
second, as a share of the best fp32 matrix-product speed measured on this machine before the
variants run. bf16 rows are added where a bf16 matrix product is at least half as fast as an
fp32 one (--bf16 always, --no-bf16 never). Nothing is asserted; --json writes the numbers.

examples:
  python -m tools.bench.training                        # the cpu preset
  python -m tools.bench.training --rounds 5 --json results/bench/training-cpu-without-bf16.json
  python -m tools.bench.training --compile              # adds a torch.compile row (minutes to compile)
  python -m tools.bench.training --vocab 8000 --out-vocab 4182 --tokens 3500   # as the cpu preset trains
  python -m tools.bench.training --preset base --device cuda
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch
from torch.utils.flop_counter import FlopCounterMode

from tools.bench.torch_reference import TorchTransformer, cross_entropy
from transformer.attention import causal_mask, padding_mask
from transformer.fused_loss import FusedLabelSmoothingLoss
from transformer.machine import cheap_dropout, cpu_capability, describe_machine, matmul_gflops
from transformer.model import Transformer, TransformerConfig
from transformer.presets import PRESETS
from transformer.training import LabelSmoothingLoss

RESTRICTIONS = (
    "ATEN_CPU_CAPABILITY",
    "ONEDNN_MAX_CPU_ISA",
    "MKL_ENABLE_INSTRUCTIONS",
)  # kernels switched off


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--preset", choices=PRESETS, default="cpu", help="model size of this preset (default cpu)")
    p.add_argument("--vocab", type=int, default=6000, help="source and target vocabulary size (default 6000)")
    p.add_argument("--tokens", type=int, default=2500, help="tokens per batch and side (default 2500)")
    p.add_argument("--src-len", type=int, default=14, help="source tokens per sentence (default 14)")
    p.add_argument("--tgt-len", type=int, default=15, help="target tokens per sentence (default 15)")
    p.add_argument("--steps", type=int, default=8, help="timed updates per variant and round (default 8)")
    p.add_argument("--warmup", type=int, default=2, help="untimed updates per variant first (default 2)")
    p.add_argument("--rounds", type=int, default=3, help="rounds over all variants; the median is reported (default 3)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    bf16 = p.add_mutually_exclusive_group()
    bf16.add_argument("--bf16", action="store_true", help="add bf16 rows even where bf16 is slow")
    bf16.add_argument("--no-bf16", action="store_true", help="fp32 rows only")
    p.add_argument("--compile", action="store_true", help="add a row for the course's model under torch.compile")
    p.add_argument("--out-vocab", type=int, help="add a row whose output layer scores only this many ids")
    p.add_argument("--json", help="also write the results to this JSON file")
    args = p.parse_args(argv)
    for name in ("vocab", "tokens", "src_len", "tgt_len", "steps", "rounds"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0:
        p.error("--warmup must be at least 0")
    if args.vocab < 5:
        p.error("--vocab must be at least 5 (4 special ids and one real token)")
    if args.out_vocab is not None and not 5 <= args.out_vocab <= args.vocab:
        p.error("--out-vocab must be between 5 and --vocab")
    if args.tokens < max(args.src_len, args.tgt_len):
        p.error("--tokens must hold at least one sentence")
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error(f"--device {args.device}: CUDA is not available")
    return args


def variants(model_kw, bf16_rows, compile_row, out_vocab=None):
    """(name, model kind, model changes, fused loss, bf16, compiled) for every row, torch.nn.Transformer fp32 first.
    Model kind "torch" is TorchTransformer (its changes: the dropout rate), "course" the course's Transformer."""
    p = model_kw.get("dropout", 0.1)
    outputs = (
        [
            (
                f"course, cheap masks, output layer over {out_vocab} ids",
                "course",
                {"cheap_dropout": True, "out_vocab": out_vocab},
                True,
            )
        ]
        if out_vocab
        else []
    )
    headline = (
        "torch.nn.Transformer",
        "course (cpu preset, fused loss)",
        "course, cheap dropout masks (the loop on a CPU)",
        *(name for name, *_ in outputs),
    )
    rows = [
        ("torch.nn.Transformer", "torch", {"dropout": p}, False),
        ("course (cpu preset, fused loss)", "course", {}, True),
        ("course, cheap dropout masks (the loop on a CPU)", "course", {"cheap_dropout": True}, True),
        *outputs,
        ("course, readable loss", "course", {}, False),
        ("course, fused attention kernel", "course", {"fast_attention": True}, True),
        (
            "course, dropout where nn.Transformer has it",
            "course",
            {"ffn_dropout": p, "attn_dropout": p},
            True,
        ),
        ("torch.nn.Transformer, dropout 0", "torch", {"dropout": 0.0}, False),
        ("course, dropout 0", "course", {"dropout": 0.0, "ffn_dropout": 0.0}, True),
    ]
    for bf16 in (False, True) if bf16_rows else (False,):
        for name, kind, change, fused in rows:
            if bf16 and name not in headline:
                continue  # bf16: the headline rows only
            yield f"{'bf16' if bf16 else 'fp32'}, {name}", kind, change, fused, bf16, False
    if compile_row:
        yield "fp32, course under torch.compile", "course", {}, True, False, True


def build(kind, change, fused, model_kw, vocab):
    "A fresh model (seeded) and its loss for one variant."
    torch.manual_seed(0)
    cheap = change.get("cheap_dropout", False)  # chapter 23's masks, as the loop draws them on a CPU
    change = {k: v for k, v in change.items() if k != "cheap_dropout"}
    kw = {k: v for k, v in model_kw.items() if k not in change}
    if kind == "torch":  # the rate applies to the embeddings' dropout too
        cfg = TransformerConfig(vocab, vocab, **{**kw, "dropout": change["dropout"]})
        return TorchTransformer(cfg, change["dropout"]), cross_entropy(0.1, cfg.pad_id)
    model = Transformer(TransformerConfig(vocab, vocab, **kw, **change))
    return (cheap_dropout(model) if cheap else model), (FusedLabelSmoothingLoss if fused else LabelSmoothingLoss)(0.1)


def peak_gflops(device):
    "The best fp32 matrix-product speed measured here (GFLOP/s), over a few sizes."
    if device.type != "cpu":
        return None
    return max(matmul_gflops(torch.float32, n=n, repeat=5) for n in (256, 512, 1024))


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    model_kw = dict(PRESETS[args.preset]["model"])
    n = args.tokens // max(args.src_len, args.tgt_len)  # sentences per batch
    gen = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(args.warmup + args.steps):
        src = torch.randint(4, args.vocab, (n, args.src_len), generator=gen)
        tgt = torch.randint(4, args.out_vocab or args.vocab, (n, args.tgt_len + 1), generator=gen)
        batches.append((src.to(device), tgt[:, :-1].to(device), tgt[:, 1:].to(device)))
    src_mask = padding_mask(batches[0][0], 0)  # no padding: every key visible
    tgt_mask = causal_mask(args.tgt_len, device)

    peak = peak_gflops(device)
    fast_bf16 = device.type == "cuda" or matmul_gflops(torch.bfloat16) >= 0.5 * matmul_gflops(torch.float32)
    bf16_rows = args.bf16 or (fast_bf16 and not args.no_bf16)

    runs = {}
    for name, kind, change, fused, bf16, compiled in variants(model_kw, bf16_rows, args.compile, args.out_vocab):
        model, loss = build(kind, change, fused, model_kw, args.vocab)
        model = model.to(device).train()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
        runs[name] = (torch.compile(model) if compiled else model, loss, optimizer, bf16)

    def update(model, loss_fn, optimizer, bf16, batch):
        src, tgt_in, tgt_out = batch
        with torch.autocast(device.type, torch.bfloat16, enabled=bf16):
            logits = model(src, tgt_in, src_mask, tgt_mask)
        loss_fn(logits, tgt_out).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    flops, first = {}, {}
    for name, (
        model,
        loss_fn,
        optimizer,
        bf16,
    ) in runs.items():  # a first update each (torch.compile compiles)
        sync()
        start = time.perf_counter()
        update(model, loss_fn, optimizer, bf16, batches[0])
        sync()
        first[name] = time.perf_counter() - start
        counter = FlopCounterMode(display=False)  # then one whose matrix products are counted
        with counter:
            update(getattr(model, "_orig_mod", model), loss_fn, optimizer, bf16, batches[0])  # uncompiled
        flops[name] = counter.get_total_flops()

    rates = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (model, loss_fn, optimizer, bf16) in runs.items():
            for batch in batches[: args.warmup]:
                update(model, loss_fn, optimizer, bf16, batch)
            sync()
            start = time.perf_counter()
            for batch in batches[args.warmup :]:
                update(model, loss_fn, optimizer, bf16, batch)
            sync()
            rates[name].append(args.steps * n * args.tgt_len / (time.perf_counter() - start))

    base = statistics.median(rates[next(iter(rates))])
    hardware = describe_machine(args.device)  # names the CPU's threads and capability
    print(f"preset {args.preset}: {model_kw}; batches of {n} sentences x {args.tgt_len} target tokens; {hardware}")
    if peak:
        print(f"fp32 matrix-product peak measured here: {peak:,.0f} GFLOP/s")
    print(f"{'variant':<58} {'target tokens/s':>16} {'ratio':>7} {'GFLOP/s':>9} {'of peak':>8}")
    results = []
    for name, r in rates.items():
        tok_s = statistics.median(r)
        gflop_s = flops[name] * tok_s / (n * args.tgt_len) / 1e9  # matrix-product work per second
        results.append(
            {
                "variant": name,
                "tokens_per_s": round(tok_s),
                "ratio": round(tok_s / base, 3),
                "gflop_per_update": round(flops[name] / 1e9, 2),
                "gflop_s": round(gflop_s, 1),
                "share_of_peak": round(gflop_s / peak, 3) if peak else None,
                "first_update_s": round(first[name], 4),
                "rounds": [round(x) for x in r],
            }
        )
        share = f"{gflop_s / peak:8.0%}" if peak else f"{'':>8}"
        print(f"{name:<58} {tok_s:>16,.0f} {tok_s / base:>7.2f} {gflop_s:>9,.0f} {share}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "preset": args.preset,
                    "device": args.device,
                    "hardware": hardware,
                    "cpu_capability": cpu_capability() if device.type == "cpu" else None,
                    "fp32_peak_gflop_s": round(peak, 1) if peak else None,
                    "batch_sentences": n,
                    "src_len": args.src_len,
                    "tgt_len": args.tgt_len,
                    "steps": args.steps,
                    "rounds": args.rounds,
                    "torch": torch.__version__,
                    "command": " ".join(
                        [f"{k}={os.environ[k]}" for k in RESTRICTIONS if os.environ.get(k)]
                        + ["python -m tools.bench.training"]
                        + (argv or sys.argv[1:])
                    ),
                    "results": results,
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
