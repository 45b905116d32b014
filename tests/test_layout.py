"""The chapters' code fits the book: lines fit its column, cells fit a screen.

The rendered book shows code in a column 88 characters wide; a longer line is cut off or
scrolls sideways, and a cell longer than 30 lines no longer fits on a screen next to the
prose that explains it (see the issue on the book's layout).

One exception: an exported cell that is one class or one function and nothing else may have
up to MAX_CLASS lines. nbdev exports cells, and a class cannot be spread over several cells
without a base class or patching methods on later, both worse to read than one longer cell;
and a function such as the training loop reads best top to bottom, as nanoGPT's does, rather
than cut into helpers that each hold a few of its lines (issue 43).
"""

import ast
import json
from pathlib import Path

import pytest

CHAPTERS = sorted((Path(__file__).parent.parent / "chapters").glob("*.ipynb"))
MAX_LINE, MAX_CELL, MAX_CLASS = 88, 30, 60


def one_exported_class(lines):
    "The cell is `#| export` and its code is a single class or function definition."
    if not lines or lines[0].replace(" ", "") != "#|export":
        return False
    try:
        body = ast.parse("\n".join(lines)).body
    except SyntaxError:
        return False
    return len(body) == 1 and isinstance(body[0], (ast.ClassDef, ast.FunctionDef))


def layout_problems(nb, name):
    """Messages for the code lines over MAX_LINE characters and the code cells over
    MAX_CELL lines of notebook `nb` (a dict as json.load gives it)."""
    problems = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        for i, line in enumerate(lines, 1):
            if len(line) > MAX_LINE:
                problems.append(
                    f"{name}, cell {cell.get('id')}, line {i}: {len(line)} characters; "
                    f"at most {MAX_LINE} fit the book's code column"
                )
        limit = MAX_CLASS if one_exported_class(lines) else MAX_CELL
        if len(lines) > limit:
            problems.append(
                f"{name}, cell {cell.get('id')}: {len(lines)} lines; at most "
                f"{limit} fit on a screen (split it, a sentence between the parts)"
            )
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_code_fits_the_column(path):
    problems = layout_problems(json.loads(path.read_text(encoding="utf-8")), path.name)
    assert not problems, "\n".join(problems)


def code_cell(cell_id, source):
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {},
        "outputs": [],
        "execution_count": None,
        "source": source,
    }


def test_layout_problems_finds_a_long_line_and_a_long_cell():
    nb = {
        "cells": [
            code_cell("longline", "x = 1\n" + "y = " + "1" * 85),  # line 2: 89 characters
            code_cell("longcell", "\n".join(f"a{i} = {i}" for i in range(31))),
            code_cell("fits", "\n".join(["z" * 88] * 30)),  # exactly at both limits
            code_cell("class", "#| export\nclass A:\n" + "\n".join(f"    a{i} = {i}" for i in range(58))),
            code_cell("bigclass", "#| export\nclass B:\n" + "\n".join(f"    b{i} = {i}" for i in range(59))),
            code_cell("function", "#| export\ndef f():\n" + "\n".join(f"    c{i} = {i}" for i in range(58))),
            code_cell(
                "twofuncs",
                "#| export\ndef g(): pass\ndef h():\n" + "\n".join(f"    d{i} = {i}" for i in range(28)),
            ),
            {"cell_type": "markdown", "id": "prose", "metadata": {}, "source": "w" * 200},
        ]
    }
    problems = layout_problems(nb, "synthetic.ipynb")
    assert len(problems) == 4, problems
    assert "synthetic.ipynb, cell longline, line 2: 89 characters" in problems[0]
    assert "at most 88" in problems[0]
    assert "cell longcell: 31 lines; at most 30" in problems[1]
    assert "cell bigclass: 61 lines; at most 60" in problems[2]
    assert "cell twofuncs: 31 lines; at most 30" in problems[3]  # one function only
