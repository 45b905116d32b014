"""Checks where the learner types: `q1.check()`, `q1.hint()`, `q1.solution()` in the exercise notebooks.

The main test runs an exercise notebook in a Jupyter kernel of its own (nbclient), offline, with one question
answered right and one wrong, and reads what `check()` printed; its last cell, `practice.score(...)`, must give
the points `make grade` gives the same notebook saved. The others read the notebooks as JSON.
"""

import re
from pathlib import Path

import nbformat
import pytest

from transformer_course.grader import notebook, practice
from transformer_course.grader.grade import grade
from transformer_course.grader.questions import NOTEBOOKS, chapter

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))


def code_cells(path):
    return [c for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "code"]


def question_number(cell):
    m = notebook.QUESTION_RE.match(notebook.first_line(cell.source))
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- the notebooks
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_the_setup_cell_makes_one_checker_per_question(path):
    "The first code cell is the setup: it installs the course where it is missing and names q1 ... qN."
    cells = code_cells(path)
    first = cells[0].source
    assert notebook.SETUP_RE.match(notebook.first_line(first)), "the first code cell is not the # Setup cell"
    assert 'importlib.util.find_spec("transformer") is None' in first and "pip" in first
    m = re.search(r'^(.*) = practice\.questions\("([^"]+)"\)$', first, re.M)
    assert m, "the setup cell does not call practice.questions(...)"
    name, questions = chapter(m.group(2))
    assert name == path.stem
    assert [s.strip() for s in m.group(1).split(",") if s.strip()] == [f"q{q.number}" for q in questions]


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_every_question_cell_is_followed_by_its_check(path):
    cells = code_cells(path)
    for i, cell in enumerate(cells):
        n = question_number(cell)
        if n is not None:
            assert i + 1 < len(cells) and cells[i + 1].source.startswith(f"q{n}.check()"), (
                f"{path.name}: question {n}'s cell is not followed by a cell starting q{n}.check()"
            )


def test_every_question_has_a_hint_that_shows_no_solution_code():
    for name in NOTEBOOKS:
        sol = ROOT / "solutions" / f"{name}.ipynb"
        code = {
            line.strip()
            for c in code_cells(sol)
            for line in c.source.split("\n")
            if len(line.strip()) > 25 and not line.strip().startswith("#")
        }
        for q in chapter(name)[1]:
            assert q.hint, f"{name} question {q.number} has no hint (HINTS in its questions module)"
            leaked = [line for line in code if line in q.hint]
            assert not leaked, f"{name} question {q.number}'s hint quotes the solution: {leaked}"


def test_exercises_are_named_by_their_chapter():
    assert list(NOTEBOOKS) == [
        "01_attention",
        "02_multi_head",
        "03_embeddings",
        "04_encoder",
        "05_decoder",
        "06_model",
        "07_training",
        "08_generation",
        "09_multi30k",
        "09_1_subwords",
        "10_translation",
        "13_beyond",
        "capstone",
    ]
    assert sorted(p.stem for p in SOLUTIONS) == sorted(NOTEBOOKS)
    assert chapter("09")[0] == "09_multi30k" and chapter("09_1")[0] == "09_1_subwords"
    assert chapter("capstone")[0] == "capstone" and chapter("10_subwords") == (None, [])


# ---------------------------------------------------------------- the solution, in a checkout and after pip
def test_solution_prints_the_worked_solution_without_markers(capsys):
    q1 = practice.questions("01_attention")[0]
    q1.solution()
    out = capsys.readouterr().out
    assert out.startswith("Solution to question 1:") and "def causal_mask(len_q, len_k=None):" in out
    assert "### BEGIN SOLUTION" not in out and "tril(diagonal=len_k - len_q)" in out


def test_where_an_installed_course_finds_its_solutions(tmp_path, monkeypatch):
    "pip records where it installed the course from (direct_url.json): a clone URL, or a folder, at a commit."
    assert (
        practice.solution_url("07_training", ("https://github.com/someone/transformer.git", "abc123"))
        == "https://raw.githubusercontent.com/someone/transformer/abc123/solutions/07_training.ipynb"
    )
    assert (
        practice.solution_url("07_training", (None, None))
        == "https://raw.githubusercontent.com/transformer-course/transformer/main/solutions/07_training.ipynb"
    )
    assert (
        practice.solution_url("capstone", (f"file://{tmp_path}", None)) == f"file://{tmp_path}/solutions/capstone.ipynb"
    )
    # a course installed from a local clone (as tests/test_install_cell.py does) reads the clone's solutions/
    from transformer_course.grader import build as build_module

    monkeypatch.setattr(build_module, "ROOT", tmp_path / "site-packages")  # no checkout around the package
    monkeypatch.setattr(practice, "installed_from", lambda: (f"file://{ROOT}", None))
    nb = practice.solution_notebook("13_beyond")
    assert notebook.cells(nb)[1][1].startswith("# Question 1 (3 points): RoPE's score from the offset")


def test_check_outside_a_notebook_says_how_to_grade(capsys):
    practice.questions("02_multi_head")[0].check()
    assert "make grade EX=exercises/02_multi_head.ipynb" in capsys.readouterr().out


# ---------------------------------------------------------------- in a kernel of its own
def test_check_in_a_kernel_right_and_wrong_and_the_same_verdicts_as_make_grade(tmp_path):
    """exercises/01_attention.ipynb run top to bottom in a fresh kernel, offline (nothing to install in a
    checkout): question 1 answered right, question 3 wrong, the others left as the exercise has them."""
    import nbclient

    nb = nbformat.read(str(ROOT / "exercises" / "01_attention.ipynb"), as_version=4)
    solution = {question_number(c): c.source for c in code_cells(ROOT / "solutions" / "01_attention.ipynb")}
    wrong = (ROOT / "tests" / "wrong_answers" / "01_q3_attention_unscaled.py").read_text()
    for cell in nb.cells:
        n = question_number(cell) if cell.cell_type == "code" else None
        if n == 1:
            cell.source = solution[1]
        elif n == 3:
            cell.source = wrong
        elif cell.cell_type == "code" and cell.source.startswith("q1.check()"):
            cell.source = "q1.check()\nq1.hint()\nq1.solution()"
    client = nbclient.NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    printed = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            printed[cell.source.split("\n", 1)[0]] = "".join(
                o.get("text", "") for o in cell.outputs if o.output_type == "stream"
            )
    right, wrong_out = printed["q1.check()"], printed["q3.check()"]
    assert right.startswith("Correct: question 1 (2 points)"), right
    assert "Hint for question 1:" in right and "def causal_mask(len_q, len_k=None):" in right
    assert wrong_out.startswith("Not yet: question 3 (3 points)") and "wrong values" in wrong_out, wrong_out
    assert "Why: Largest error" in wrong_out  # the grader's own explanation of the miss
    assert "not answered yet" in printed["q4.check()"]
    # the score cell, from the cells the kernel ran, and `make grade` on the same notebook saved: the same points
    path = tmp_path / "01_attention.ipynb"
    nbformat.write(nb, str(path))
    saved = grade(path, timeout=30)
    table = printed['practice.score("01_attention")']
    for q in saved["questions"]:
        row = re.search(rf"^\s+{q['number']}\s+{re.escape(q['title'])}\s+(\d+)/(\d+)", table, re.M)
        assert row and int(row[1]) == q["points"], (q, table)
    assert f"Total: {saved['score']}/{saved['max_score']} points" in table
    assert saved["score"] == 2  # question 1 alone
