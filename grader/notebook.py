"""Reading exercise notebooks: which cell is the setup, which cell answers which question."""
import re
from pathlib import Path

import nbformat

QUESTION_RE = re.compile(r"^#\s*Question\s+(\d+)\s*\((\d+)\s+points?\)\s*:\s*(.*)$", re.IGNORECASE)
SETUP_RE = re.compile(r"^#\s*Setup\b", re.IGNORECASE)


def first_line(src):
    return src.lstrip("\n").split("\n", 1)[0].strip()


def read(path):
    "Read a notebook; raise ValueError with a one-line reason when it is not one."
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        return nbformat.read(str(path), as_version=4)
    except Exception as e:  # nbformat raises several kinds for broken JSON / schema
        raise ValueError(f"{path}: not a Jupyter notebook ({type(e).__name__})") from None


def chapter_of(nb, path):
    "The exercise a notebook belongs to: its metadata, else the NN_ prefix of its file name."
    name = nb.metadata.get("grader", {}).get("chapter")
    if name:
        return name
    m = re.search(r"(\d\d)_", Path(path).name)
    return m.group(1) if m else None


def strip_magics(src):
    "Comment out IPython magics and shell escapes, which plain Python cannot run."
    return "\n".join("# " + l if l.lstrip().startswith(("%", "!")) else l for l in src.split("\n"))


def cells(nb):
    "(setup source, {question number: source}); the first cell claiming a number wins."
    setup, questions = [], {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        line = first_line(cell.source)
        m = QUESTION_RE.match(line)
        if m:
            questions.setdefault(int(m.group(1)), strip_magics(cell.source))
        elif SETUP_RE.match(line):
            setup.append(strip_magics(cell.source))
    return "\n\n".join(setup), questions
