"""How much the capstone's reference accuracy moves with the seed: the basis of grader.capstone.TOLERANCE.

    python tools/capstone_seeds.py [--seeds 0 1 2 3 4]

Trains the package's Transformer on the capstone's task and budget once per seed (one thread, as the
grader does) and prints the exact-match accuracy of each run, with the CPU it ran on.
"""
import argparse
import time

import torch

from grader import capstone
from transformer.model import Transformer
from transformer.training import cpu_capability


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"CPU: {cpu_capability()}; torch {torch.__version__}; fp32; 1 thread; "
          f"model {capstone.MODEL}; budget {capstone.BUDGET}")
    scores = []
    for seed in args.seeds:
        start = time.perf_counter()
        scores.append(capstone.train_and_score(Transformer, seed))
        print(f"seed {seed}: exact match {scores[-1]:.3f} ({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"min {min(scores):.3f}, max {max(scores):.3f}, tolerance in the grader {capstone.TOLERANCE}")


if __name__ == "__main__":
    main()
