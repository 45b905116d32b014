"""`solutions/` -> `exercises/`: solution code replaced by a stub, outputs cleared."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*### END SOLUTION\s*$")
ANSWER = re.compile(r"^(\s*)(answer_\w+)\s*=")


def clear_solutions(src):
    "Replace each BEGIN/END SOLUTION block by a stub with the block's indentation."
    out, block, indent = [], None, ""
    for line in src.split("\n"):
        if BEGIN.match(line):
            if block is not None:
                raise ValueError("nested ### BEGIN SOLUTION")
            block, indent = [], BEGIN.match(line).group(1)
        elif END.match(line):
            if block is None:
                raise ValueError("### END SOLUTION without BEGIN")
            # A block that sets answer_* at its own indentation (even after a helper) becomes
            # `answer_* = None  # your answer`; any other block becomes a NotImplementedError stub.
            names = [m.group(2) for m in map(ANSWER.match, block) if m and m.group(1) == indent]
            if names:
                out += [f"{indent}{name} = None  # your answer" for name in dict.fromkeys(names)]
            else:
                out += [f"{indent}# YOUR CODE HERE", f"{indent}raise NotImplementedError()"]
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    if block is not None:
        raise ValueError("### BEGIN SOLUTION without END")
    return "\n".join(out)


def exercise_text(solution_path):
    """The exercise notebook, as text, that a solution notebook generates (deterministic).

    Plain json, written the way nbformat writes notebooks (sorted keys, one-space indent, sources
    as lists of lines): importing nbformat costs seconds, which `check` in CI does not need."""
    nb = json.loads(Path(solution_path).read_text())
    if nb.get("nbformat") != 4:
        raise ValueError(f"{solution_path}: not a version 4 notebook")
    for cell in nb["cells"]:
        cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k == "tags"}
        source = "".join(cell.get("source", []))
        if cell["cell_type"] == "code":
            try:
                source = clear_solutions(source)
            except ValueError as e:
                raise ValueError(f"{solution_path}: {e} in cell starting {source[:40]!r}") from None
            cell["outputs"], cell["execution_count"] = [], None
        cell["source"] = source.splitlines(True)
    nb["metadata"] = {k: v for k, v in nb.get("metadata", {}).items() if k in ("kernelspec", "language_info", "grader")}
    nb["metadata"].get("language_info", {}).pop("version", None)
    return json.dumps(nb, sort_keys=True, indent=1, separators=(",", ": "), ensure_ascii=False) + "\n"


def pairs(root=ROOT):
    "(solution, exercise) paths for every solution notebook."
    root = Path(root)
    return [(s, root / "exercises" / s.name) for s in sorted((root / "solutions").glob("*.ipynb"))]


def build(root=ROOT):
    "Write exercises/ from solutions/; return the paths that changed (unchanged files are left alone)."
    written = []
    for sol, ex in pairs(root):
        ex.parent.mkdir(exist_ok=True)
        text = exercise_text(sol)
        if not ex.exists() or ex.read_text() != text:
            ex.write_text(text)
            written.append(ex)
    return written


def stale(root=ROOT):
    "Exercise notebooks that differ from what build would write, or have no solution."
    root = Path(root)
    bad = [ex for sol, ex in pairs(root) if not ex.exists() or ex.read_text() != exercise_text(sol)]
    sources = {s.name for s in (root / "solutions").glob("*.ipynb")}
    bad += [ex for ex in sorted((root / "exercises").glob("*.ipynb")) if ex.name not in sources]
    return bad
