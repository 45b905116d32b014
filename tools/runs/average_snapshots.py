r"""Average a finished run's kept snapshots another way than its preset did.

    python -m tools.runs.average_snapshots runs/NAME --every 80 --last 10 [--out PATH]

The run must have kept them (`transformer-train --keep-snapshots K`). Writes the average of
the newest `last` snapshots whose update numbers are multiples of `every`, as
`averaged-<every>x<last>.pt` in the run's folder by default; evaluate it with
`transformer-evaluate --checkpoint PATH`. Its recorded scores go beside the run's own, e.g.

    transformer-evaluate --checkpoint runs/NAME/averaged-80x10.pt --split val --beam 4 \
        --json results/NAME/averaging/NAME-averaged-80x10-beam4-alpha1.5.json
"""

import argparse
import sys
from pathlib import Path

from transformer.checkpoint import RunFolder
from transformer.snapshots import Snapshots


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="the run's folder (its checkpoint and kept snapshots)")
    p.add_argument("--every", type=int, required=True, help="updates between the snapshots")
    p.add_argument("--last", type=int, required=True, help="how many snapshots to average")
    p.add_argument("--out", help="where to write (default: RUN/averaged-EVERYxLAST.pt)")
    a = p.parse_args(argv)
    run = RunFolder(Path(a.run))
    default = run.averaged.with_stem(f"{run.averaged.stem}-{a.every}x{a.last}")  # averaged-80x10.pt
    out = Path(a.out) if a.out else default
    n = Snapshots(None, run.snapshots, a.every, a.last).write_average(run.checkpoint, out)
    if n < a.last:
        out.unlink(missing_ok=True)
        print(
            f"error: {run.snapshots} holds {n} snapshots {a.every} updates apart, not {a.last}",
            file=sys.stderr,
        )
        return 1
    print(f"{out}: the average of {n} snapshots {a.every} updates apart")
    return 0


if __name__ == "__main__":
    sys.exit(main())
