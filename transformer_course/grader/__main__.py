"""Command line: python -m transformer_course.grader {build,check,grade,report}."""

import argparse
import os
import sys
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m transformer_course.grader",
        description="Build the exercise notebooks from solutions/ and grade filled-in exercises.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("build", "regenerate exercises/ from solutions/"),
        ("check", "exit 1 when exercises/ differs from what `build` writes"),
    ):
        b = sub.add_parser(name, help=text, description=text)
        b.add_argument(
            "--root",
            metavar="DIR",
            default=None,
            help="the folder holding solutions/ and exercises/ (default: this repository)",
        )
    g = sub.add_parser(
        "grade",
        help="grade exercise notebooks and print a table of points",
        description="Grade each question of a notebook on its own (a broken answer costs only "
        "its question), print a table and the total, and write the result as JSON. "
        "Exits 0 whatever the score; non-zero only when a notebook cannot be read.",
    )
    g.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="exercise notebook(s) to grade")
    g.add_argument(
        "--json",
        metavar="PATH",
        help="where to write the result (one notebook only; default: grades/<name>.json)",
    )
    g.add_argument("--json-dir", metavar="DIR", default="grades", help="folder for the JSON results (default: grades)")
    g.add_argument("--hints", action="store_true", help="explain each miss: the input that failed, expected vs got")
    g.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="time limit for each question (default: 30)",
    )
    r = sub.add_parser(
        "report",
        help="one table of every exercise's points and misses, from the JSON results",
        description="Print one table of all exercises (points, maximum, missed questions) from the "
        "JSON files that `grade` writes. Grades nothing itself.",
    )
    r.add_argument("--json-dir", metavar="DIR", default="grades", help="folder of the JSON results (default: grades)")
    args = parser.parse_args(argv)

    if args.command == "report":
        if not Path(args.json_dir).is_dir():
            print(
                f"error: {args.json_dir} is not a folder: grade an exercise first "
                "(make grade EX=exercises/01_attention.ipynb)",
                file=sys.stderr,
            )
            return 2
        from .grade import report

        print(report(args.json_dir))
        return 0

    if args.command in ("build", "check"):
        from .build import ROOT, build, stale

        root = Path(args.root) if args.root else ROOT
        if not (root / "solutions").is_dir():
            print(f"error: {root / 'solutions'} is not a folder", file=sys.stderr)
            return 2
        try:
            if args.command == "build":
                written = build(root)
                for path in written:
                    print(f"wrote {os.path.relpath(path)}")
                if not written:
                    print("exercises/ is up to date")
                return 0
            bad = stale(root)
        except ValueError as e:  # unbalanced BEGIN/END SOLUTION markers
            print(f"error: {e}", file=sys.stderr)
            return 2
        for path in bad:
            print(
                f"out of date: {os.path.relpath(path)} (run `python -m transformer_course.grader build`)",
                file=sys.stderr,
            )
        if not bad:
            print("exercises/ is up to date")
        return 1 if bad else 0

    if args.timeout <= 0:
        parser.error("--timeout must be a positive number of seconds")
    if args.json and len(args.notebooks) > 1:
        parser.error("--json takes one notebook; use --json-dir for several")
    from . import notebook

    for path in args.notebooks:  # fail fast, before anything is graded
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
