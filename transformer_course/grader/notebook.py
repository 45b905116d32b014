"""Reading exercise notebooks: which cell is the setup, which cell answers which question."""

import json
import re
from pathlib import Path

QUESTION_RE = re.compile(r"^#\s*Question\s+(\d+)\s*\((\d+)\s+points?\)\s*:\s*(.*)$", re.IGNORECASE)
SETUP_RE = re.compile(r"^#\s*Setup\b", re.IGNORECASE)


def first_line(src):
    "The first non-blank line of a cell, stripped."
    return src.strip().split("\n", 1)[0].strip()


def read(path):
    """Read a notebook as a plain dict (cell sources joined into strings); ValueError with a one-line
    reason when it is not one. Version 4 notebooks are read as JSON (nbformat takes seconds to import);
    older ones go through nbformat's converter."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(nb, dict) or nb.get("nbformat") != 4:
            import nbformat

            nb = json.loads(nbformat.writes(nbformat.read(str(path), as_version=4)))
        if not isinstance(nb.get("cells"), list):
            raise ValueError("no list of cells")
        for cell in nb["cells"]:
            if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
                raise ValueError("a cell without a type")
            source = cell.get("source", "")
            cell["source"] = source if isinstance(source, str) else "".join(source)
        nb.setdefault("metadata", {})
        return nb
    except Exception as e:  # broken JSON, wrong structure, or nbformat's own errors for old versions
        raise ValueError(f"{path}: not a Jupyter notebook ({type(e).__name__})") from None


def chapter_of(nb, path):
    "The exercise a notebook belongs to: its metadata, else the number its file name starts with, else its name."
    meta = nb["metadata"].get("grader")
    name = meta.get("chapter") if isinstance(meta, dict) else None
    if name:
        return str(name)
    m = re.match(r"\d+(?:_\d+)*(?=_)", Path(path).name)  # '09_1' of 09_1_subwords.ipynb, '01' of 01_attention...
    return m.group(0) if m else Path(path).stem


def strip_magics(src):
    "Comment out IPython magics and shell escapes, which plain Python cannot run."
    return "\n".join("# " + l if l.lstrip().startswith(("%", "!")) else l for l in src.split("\n"))


def cells(nb):
    "(setup source, {question number: source}); the first cell claiming a number wins."
    setup, questions = [], {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        line = first_line(cell["source"])
        m = QUESTION_RE.match(line)
        if m:
            questions.setdefault(int(m.group(1)), strip_magics(cell["source"]))
        elif SETUP_RE.match(line):
            setup.append(strip_magics(cell["source"]))
    return "\n\n".join(setup), questions
