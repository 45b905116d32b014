"""The capstone's reference against a correct set of pieces, seed by seed: the basis of
transformer_course.grader.capstone.TOLERANCE.

    python -m tools.runs.capstone_seeds [--seeds 0 1 2 3 4] [--pieces solutions] [--json results/toy/seeds.json]

For each seed, trains the package's Transformer and the capstone's MyTransformer built from the pieces in
`--pieces` (the solutions by default: a learner who got everything right) on the capstone's task and
budget, from the same initial weights (one thread, as the grader does), and prints both exact-match
accuracies, with the CPU it ran on. The seed moves the package's own result; a correct model should
follow it closely at every seed. The package's column is chapter 7's toy run (its task, model and budget)
at each seed: `--json` records it with the machine and the command.
"""

import argparse
import json
import platform
import sys
import time

import torch

from transformer.machine import cpu_capability
from transformer.training import TOY_MODEL, TOY_TRAIN
from transformer_course.grader import capstone, notebook


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument(
        "--pieces", default="solutions", help="folder of exercise notebooks 01-05 and 09 (default: solutions)"
    )
    parser.add_argument("--json", help="also write the accuracies, machine and command to this file")
    args = parser.parse_args()
    setup, cells = notebook.cells(notebook.read(f"{args.pieces}/capstone.ipynb"))
    ns = {}
    exec(setup + "\n" + cells[1], ns)
    pieces = capstone.load_pieces(args.pieces)
    torch.set_num_threads(1)
    print(f"CPU: {cpu_capability()}; torch {torch.__version__}; fp32; 1 thread; model {TOY_MODEL}; budget {TOY_TRAIN}")
    gaps, rows = [], []
    for seed in args.seeds:
        start = time.perf_counter()
        package = capstone.package_accuracy(seed)
        mine = capstone.your_accuracy(ns["MyTransformer"], pieces, seed)
        gaps.append(package - mine)
        rows.append({"seed": seed, "package": package, "pieces": mine})
        print(
            f"seed {seed}: exact match, package {package:.3f}, pieces of {args.pieces} {mine:.3f} "
            f"({time.perf_counter() - start:.0f} s for both)",
            flush=True,
        )
    print(f"largest shortfall of the pieces: {max(gaps):.3f}; tolerance in the grader: {capstone.TOLERANCE}")
    if args.json:
        record = {
            "what": "exact match of chapter 7's toy run on the 500 test pairs, greedy decoding",
            "command": " ".join(["python"] + sys.argv),
            "machine": f"{platform.processor() or platform.machine()}, {cpu_capability()}",
            "torch": torch.__version__,
            "precision": "fp32",
            "threads": 1,
            "model": TOY_MODEL,
            "budget": TOY_TRAIN,
            "pieces_from": args.pieces,
            "seeds": rows,
            "lowest_package": min(r["package"] for r in rows),
            "tolerance": capstone.TOLERANCE,
        }
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
