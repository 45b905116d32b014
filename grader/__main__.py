"""Command line: python -m grader {build,check,grade}."""
import argparse
import os
import sys
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m grader",
        description="Build the exercise notebooks from solutions/ and grade filled-in exercises.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="regenerate exercises/ from solutions/")
    sub.add_parser("check", help="exit 1 when exercises/ differs from what `build` writes")
    g = sub.add_parser("grade", help="grade exercise notebooks and print a table of points",
                       description="Grade each question of a notebook on its own (a broken answer costs only "
                                   "its question), print a table and the total, and write the result as JSON. "
                                   "Exits 0 whatever the score; non-zero only when a notebook cannot be read.")
    g.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="exercise notebook(s) to grade")
    g.add_argument("--json", metavar="PATH", help="where to write the result (one notebook only; "
                                                  "default: grades/<name>.json)")
    g.add_argument("--json-dir", metavar="DIR", default="grades", help="folder for the JSON results (default: grades)")
    g.add_argument("--hints", action="store_true", help="explain each miss: the input that failed, expected vs got")
    g.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                   help="time limit for each question (default: 30)")
    args = parser.parse_args(argv)

    if args.command == "build":
        from .build import build
        for path in build():
            print(f"wrote {os.path.relpath(path)}")
        return 0
    if args.command == "check":
        from .build import stale
        bad = stale()
        for path in bad:
            print(f"out of date: {os.path.relpath(path)} (run `python -m grader build`)", file=sys.stderr)
        if not bad:
            print("exercises/ is up to date")
        return 1 if bad else 0

    if args.json and len(args.notebooks) > 1:
        parser.error("--json takes one notebook; use --json-dir for several")
    from . import notebook
    for path in args.notebooks:                      # fail fast, before anything is graded
        try:
            notebook.read(path)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from .grade import grade, table, write_json
    for path in args.notebooks:
        try:
            result = grade(path, timeout=args.timeout)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        out = args.json or Path(args.json_dir) / (Path(path).stem + ".json")
        write_json(result, out)
        print(table(result, hints=args.hints))
        if not args.hints and result["score"] < result["max_score"]:
            print("  (add --hints to see why each miss failed)")
        print(f"  result written to {out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
