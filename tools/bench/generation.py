"""Time decoding with and without the key/value cache (chapter 8).

A Transformer with random weights (decoding speed does not depend on the weights) decodes a
batch of random source sentences. Every run generates exactly --tokens tokens per sentence:
decoding is not allowed to stop at <eos>. Three runs are timed, each --repeats times after one
warm-up, and the median is printed:

  greedy, no cache   the decoder runs over the whole prefix at every step
  greedy, cache      keys and values of earlier positions are kept (transformer.generation.KVCache)
  beam K, cache      beam search with K beams, cached

Nothing is asserted: this prints what it measures.

examples:
  python -m tools.bench.generation                       # base model, batch 8, 64 tokens
  python -m tools.bench.generation --size mid --repeats 5
  python -m tools.bench.generation --threads 1 --batch 1
"""

import argparse
import statistics
import sys
import time

import torch
from tqdm import tqdm

from transformer.generation import beam_search, greedy_search
from transformer.model import Transformer, TransformerConfig, count_parameters

SIZES = {
    "small": dict(d_model=128, n_layers=2, h=4, d_ff=512),
    "mid": dict(d_model=256, n_layers=4, h=4, d_ff=1024),
    "base": dict(d_model=512, n_layers=6, h=8, d_ff=2048),
}
BOS = 2


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--size",
        choices=SIZES,
        default="base",
        help="model size: small (d_model 128, n_layers=2), mid (256, n_layers=4), base (512, n_layers=6, the paper's); default base",
    )
    p.add_argument("--vocab", type=int, default=8000, help="shared vocabulary size (default 8000)")
    p.add_argument("--batch", type=int, default=8, help="sentences decoded together (default 8)")
    p.add_argument("--src-len", type=int, default=20, help="source tokens per sentence (default 20)")
    p.add_argument("--tokens", type=int, default=64, help="tokens generated per sentence (default 64)")
    p.add_argument("--beam", type=int, default=4, help="beam size K for the beam-search run (default 4)")
    p.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="timed runs per measurement; the median is reported (default 3)",
    )
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for name in ("vocab", "batch", "src_len", "tokens", "beam", "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.vocab < 5:
        p.error("--vocab must be at least 5 (4 special ids and one real token)")
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error(f"--device {args.device}: CUDA is not available")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    torch.manual_seed(args.seed)
    cfg = TransformerConfig(
        args.vocab, args.vocab, dropout=0.0, max_len=max(args.tokens, args.src_len) + 1, **SIZES[args.size]
    )
    model = Transformer(cfg).to(device).eval()
    src = torch.randint(4, args.vocab, (args.batch, args.src_len), device=device)  # (batch, len_s), no padding
    n, K = args.tokens, args.beam
    runs = {
        "greedy, no cache": lambda: greedy_search(model, src, BOS, None, n, use_cache=False),
        "greedy, cache": lambda: greedy_search(model, src, BOS, None, n),
        f"beam {K}, cache": lambda: beam_search(model, src, BOS, None, n, beam_size=K),
    }

    def timed(fn):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start

    print(
        f"model: {args.size} (d_model={cfg.d_model}, n_layers={cfg.n_layers}, h={cfg.h}, d_ff={cfg.d_ff}), "
        f"vocab {args.vocab}, {count_parameters(model)['total'] / 1e6:.1f}M parameters, random weights"
    )
    print(
        f"work: batch {args.batch}, {args.src_len} source tokens, {n} generated tokens per sentence; "
        f"device {device}, {torch.get_num_threads()} CPU thread(s), torch {torch.__version__}"
    )
    medians = {}
    with tqdm(total=len(runs) * (args.repeats + 1), desc="timing", file=sys.stderr, leave=False) as bar:
        for name, fn in runs.items():
            fn()
            bar.update()  # warm-up
            times = []
            for _ in range(args.repeats):
                times.append(timed(fn))
                bar.update()
            medians[name] = statistics.median(times)

    print(f"\n{'run':<20}{'median s':>10}{'tokens/s':>11}")
    for name, t in medians.items():
        print(f"{name:<20}{t:>10.3f}{args.batch * n / t:>11.0f}")
    print(f"\ncache speed-up (greedy, no cache / cache): {medians['greedy, no cache'] / medians['greedy, cache']:.1f}x")
    print(f"beam {K} / greedy (both cached):             {medians[f'beam {K}, cache'] / medians['greedy, cache']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
