"""`solutions/` -> `exercises/`: solution code replaced by a stub, outputs cleared."""
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*### END SOLUTION\s*$")
ANSWER = re.compile(r"^\s*(answer_\w+)\s*=")


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
            first = next((l for l in block if l.strip()), "")
            m = ANSWER.match(first)
            if m:
                out.append(f"{indent}{m.group(1)} = None  # your answer")
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
    "The exercise notebook, as text, that a solution notebook generates (deterministic)."
    nb = nbformat.read(str(solution_path), as_version=4)
    for cell in nb.cells:
        cell.metadata = {k: v for k, v in cell.metadata.items() if k == "tags"}
        if cell.cell_type == "code":
            try:
                cell.source = clear_solutions(cell.source)
            except ValueError as e:
                raise ValueError(f"{solution_path}: {e} in cell starting {cell.source[:40]!r}") from None
            cell.outputs, cell.execution_count = [], None
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in ("kernelspec", "language_info", "grader")}
    nb.metadata.get("language_info", {}).pop("version", None)
    return nbformat.writes(nb) + "\n"


def pairs(root=ROOT):
    "(solution, exercise) paths for every solution notebook."
    root = Path(root)
    return [(s, root / "exercises" / s.name) for s in sorted((root / "solutions").glob("*.ipynb"))]


def build(root=ROOT):
    "Write exercises/ from solutions/; return the paths written."
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
