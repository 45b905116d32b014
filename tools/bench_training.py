"""Time training updates of a preset's model in several variants (chapter 10).

One update = forward, label-smoothed loss, backward, Adam step: what transformer-train repeats.
The batches are random token ids shaped like Multi30k's (sentences of --src-len and --tgt-len
tokens, as many as fit in --tokens per side), the same batches for every variant, so that only
the variant changes. Each variant makes --warmup untimed updates, then --steps timed ones, and
the variants take turns (--rounds rounds) so that a busy moment of a shared machine does not
fall on one variant only; the median round is reported. The variants:

  precision   fp32, or bf16 (torch.autocast: matrix products in bfloat16, the loss in fp32)
  attention   fused (torch's scaled_dot_product_attention) or plain (chapter 1's code)
  dropout     the preset's everywhere, the preset's but none inside the feed-forward networks
              (ffn_dropout 0, as in the paper), or 0

Nothing is asserted: this prints target tokens per second for each variant and its ratio to
the first one, and with --json writes them to a file.

examples:
  python tools/bench_training.py                        # the cpu preset, all twelve variants
  python tools/bench_training.py --rounds 5 --json results/bench/training-cpu.json
  python tools/bench_training.py --preset base --device cuda
"""
import argparse
import itertools
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from transformer.attention import causal_mask, padding_mask
from transformer.model import Transformer, TransformerConfig
from transformer.training import LabelSmoothingLoss
from transformer.translate import PRESETS, _hardware


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
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
    p.add_argument("--json", help="also write the results to this JSON file")
    args = p.parse_args(argv)
    for name in ("vocab", "tokens", "src_len", "tgt_len", "steps", "rounds"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0:
        p.error("--warmup must be at least 0")
    if args.vocab < 5:
        p.error("--vocab must be at least 5 (4 special ids and one real token)")
    if args.tokens < max(args.src_len, args.tgt_len):
        p.error("--tokens must hold at least one sentence")
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error(f"--device {args.device}: CUDA is not available")
    return args


def variants(preset_dropout):
    "(name, bf16, fused attention, dropout, ffn_dropout) for every combination, the fp32 fused preset-dropout one first."
    dropouts = [(preset_dropout, None, f"dropout {preset_dropout}"),
                (preset_dropout, 0.0, f"dropout {preset_dropout}, none in FFN"), (0.0, None, "dropout 0")]
    for bf16, fused, (dropout, ffn_dropout, said) in itertools.product((False, True), (True, False), dropouts):
        name = f"{'bf16' if bf16 else 'fp32'}, {'fused' if fused else 'plain'} attention, {said}"
        yield name, bf16, fused, dropout, ffn_dropout


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    model_kw = dict(PRESETS[args.preset]["model"])
    n = args.tokens // max(args.src_len, args.tgt_len)              # sentences per batch
    gen = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(args.warmup + args.steps):
        src = torch.randint(4, args.vocab, (n, args.src_len), generator=gen)
        tgt = torch.randint(4, args.vocab, (n, args.tgt_len + 1), generator=gen)
        batches.append((src.to(device), tgt[:, :-1].to(device), tgt[:, 1:].to(device)))
    src_mask = padding_mask(batches[0][0], 0)                        # no padding: every key visible
    tgt_mask = causal_mask(args.tgt_len, device)
    criterion = LabelSmoothingLoss(0.1)

    runs = {}
    for name, bf16, fused, dropout, ffn_dropout in variants(model_kw.get("dropout", 0.1)):
        torch.manual_seed(0)
        cfg = TransformerConfig(args.vocab, args.vocab, **{**model_kw, "fast_attention": fused, "dropout": dropout,
                                                            "ffn_dropout": ffn_dropout})
        model = Transformer(cfg).to(device).train()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
        runs[name] = (model, optimizer, bf16)

    def update(model, optimizer, bf16, batch):
        src, tgt_in, tgt_out = batch
        with torch.autocast(device.type, torch.bfloat16, enabled=bf16):
            logits = model(src, tgt_in, src_mask, tgt_mask)
        criterion(logits, tgt_out).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    def sync():
        if device.type == "cuda": torch.cuda.synchronize(device)

    rates = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (model, optimizer, bf16) in runs.items():
            for batch in batches[:args.warmup]:
                update(model, optimizer, bf16, batch)
            sync()
            start = time.perf_counter()
            for batch in batches[args.warmup:]:
                update(model, optimizer, bf16, batch)
            sync()
            rates[name].append(args.steps * n * args.tgt_len / (time.perf_counter() - start))

    base = statistics.median(rates[next(iter(rates))])
    hardware = _hardware(args.device) + ("" if device.type == "cuda" else f", {torch.get_num_threads()} threads")
    print(f"preset {args.preset}: {model_kw}; batches of {n} sentences x {args.tgt_len} target tokens; {hardware}")
    print(f"{'variant':<50} {'target tokens/s':>16} {'ratio':>7}")
    results = []
    for name, r in rates.items():
        tok_s = statistics.median(r)
        results.append({"variant": name, "tokens_per_s": round(tok_s), "ratio": round(tok_s / base, 3),
                        "rounds": [round(x) for x in r]})
        print(f"{name:<50} {tok_s:>16,.0f} {tok_s / base:>7.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"preset": args.preset, "device": args.device, "hardware": hardware,
                                               "batch_sentences": n, "src_len": args.src_len, "tgt_len": args.tgt_len,
                                               "steps": args.steps, "rounds": args.rounds, "torch": torch.__version__,
                                               "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
