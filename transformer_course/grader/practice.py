"""Checks where the learner types: `q1.check()`, `q1.hint()`, `q1.solution()` in an exercise notebook.

The first code cell of every exercise sets them up:

    from transformer_course.grader import practice
    q1, q2, q3 = practice.questions("09_1_subwords")

`q1.check()` grades question 1 exactly as `make grade` does, with the same check: it takes the setup cell
and question 1's cell as the kernel last ran them (IPython keeps every cell it runs), and hands them to
`grade.grade_question`, which runs them and then the check in a forked process with a time limit. So the
verdict is the grader's, and nothing the check does (the ban on the package's own answer, a loop that never
ends) touches the learner's kernel. `q1.hint()` prints a nudge, `q1.solution()` the worked solution from
`solutions/`: read from the checkout when there is one, else from the repository the course was installed
from (pip records it), which is how it works in Colab. `practice.score()` grades every question at once.
"""

import json
import os
import re
import urllib.request
from pathlib import Path

from . import checks, notebook

REPOSITORY = "https://github.com/transformer-course/transformer"


class Practice:
    "One question of an exercise, as the learner sees it: check(), hint(), solution()."

    def __init__(self, exercise, question):
        self.exercise, self.question = exercise, question
        self.number, self.points, self.title = question.number, question.points, question.title
        self.passed = None  # the verdict of the last check(): True, False or None

    def __repr__(self):
        return (
            f"Question {self.number} ({self.points} point{'s' if self.points != 1 else ''}): {self.title}. "
            f"Run your cell, then q{self.number}.check(); q{self.number}.hint() and q{self.number}.solution() "
            "if you need them."
        )

    def check(self, timeout=30.0):
        """Grade this question as `make grade` would and print the verdict: the setup cell and this question's
        cell, as the kernel last ran them, then the grader's check, in a process of their own."""
        if checks.GRADING:  # this call is inside a cell the grader itself is running
            return
        cells = history_cells()
        if cells is None:
            print(
                "q.check() works in a Jupyter or Colab notebook; elsewhere grade the saved notebook with "
                f"`make grade EX=exercises/{self.exercise}.ipynb`."
            )
            return
        setup, sources = cells
        source = sources.get(self.number)
        if source is None:
            print(
                f"Run question {self.number}'s cell first: its first line must stay "
                f"`# Question {self.number} ({self.points} point{'s' if self.points != 1 else ''}): ...`."
            )
            self.passed = False
            return
        passed, reason, hint = run_check(self.exercise, self.question, setup, source, sources, timeout)
        self.passed = passed
        print(verdict(self.question, passed, reason, hint))

    def hint(self):
        "Print a nudge towards the answer (never the answer itself)."
        print(f"Hint for question {self.number}: {self.question.hint or 'no hint for this one: reread the question.'}")

    def solution(self):
        "Print the worked solution: question's cell of solutions/<exercise>.ipynb."
        try:
            nb = solution_notebook(self.exercise)
        except OSError as e:
            print(
                f"The solution could not be read ({e}). It is solutions/{self.exercise}.ipynb in the repository: "
                f"{REPOSITORY}/blob/main/solutions/{self.exercise}.ipynb"
            )
            return
        _, sources = notebook.cells(nb)
        print(f"Solution to question {self.number}:\n\n{solution_code(sources.get(self.number, ''))}")


def questions(exercise):
    "The exercise's questions in order, as objects with check(), hint() and solution(): q1, q2, ... = questions(...)."
    from .questions import chapter

    name, qs = chapter(exercise)
    if name is None:
        raise ValueError(f"no exercise named {exercise!r}")
    return [Practice(name, q) for q in qs]


def score(exercise, timeout=30.0):
    "Grade every question of the exercise from the cells the kernel last ran, and print the grader's table."
    if checks.GRADING:
        return None
    from .grade import table
    from .questions import chapter

    name, qs = chapter(exercise)
    cells = history_cells()
    if cells is None:
        print(
            f"practice.score() works in a Jupyter or Colab notebook; elsewhere run "
            f"`make grade EX=exercises/{name}.ipynb`."
        )
        return None
    setup, sources = cells
    rows = []
    for q in qs:
        if q.number in sources:
            passed, reason, hint = run_check(name, q, setup, sources[q.number], sources, timeout)
        else:
            passed, reason, hint = False, "cell not run yet", f"Run question {q.number}'s cell."
        rows.append(
            dict(
                number=q.number,
                title=q.title,
                points=q.points if passed else 0,
                max_points=q.points,
                passed=passed,
                reason=reason,
                hint=hint,
                seconds=0.0,
            )
        )
    result = dict(
        notebook="this notebook",
        exercise=name,
        score=sum(r["points"] for r in rows),
        max_score=sum(q.points for q in qs),
        questions=rows,
    )
    print(table(result, hints=True))
    return result


# ---------------------------------------------------------------- what the kernel ran
def history_cells():
    """(setup source, {question number: source}) from the cells the IPython kernel has run, the latest run of
    each winning; None outside IPython. Magics are commented out, as the grader does with a saved notebook."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    setup, questions = "", {}
    for raw in shell.history_manager.input_hist_raw:
        line = notebook.first_line(raw or "")
        m = notebook.QUESTION_RE.match(line)
        if m:
            questions[int(m.group(1))] = notebook.strip_magics(raw)
        elif notebook.SETUP_RE.match(line):
            setup = notebook.strip_magics(raw)
    return setup, questions


def run_check(exercise, q, setup, source, sources, timeout):
    "The grader's verdict on one question: (passed, reason, hint)."
    from .grade import grade_question

    # questions that read more than their own cell (the capstone trains question 1's model in question 2) find
    # the cells the kernel ran here, and the learner's other exercise notebooks in the kernel's folder
    checks.CELLS = (setup, dict(sources))
    try:
        return grade_question(q, setup, source, max(timeout, q.timeout or 0), Path.cwd() / f"{exercise}.ipynb")
    finally:
        checks.CELLS = None


def verdict(q, passed, reason, hint):
    "The text check() prints."
    points = f"{q.points} point{'s' if q.points != 1 else ''}"
    if passed:
        return f"Correct: question {q.number} ({points}), {q.title}."
    text = f"Not yet: question {q.number} ({points}), {q.title}: {reason}."
    if reason == "not answered yet":
        return text
    text += f"\n  Why: {hint}" if hint else ""
    return text + f"\n  (q{q.number}.hint() gives a nudge, q{q.number}.solution() the answer.)"


# ---------------------------------------------------------------- the worked solution
def solution_code(source):
    "A solution cell as the learner reads it: the BEGIN/END SOLUTION markers dropped, the rest as it is."
    from .build import BEGIN, END

    return "\n".join(l for l in source.split("\n") if not (BEGIN.match(l) or END.match(l))).strip()


def solution_notebook(exercise):
    """solutions/<exercise>.ipynb as a dict: from the checkout this package lives in, else from where pip
    installed it (a local folder or a clone URL), else from the repository on GitHub."""
    from .build import ROOT

    local = ROOT / "solutions" / f"{exercise}.ipynb"
    if local.is_file():
        return notebook.read(local)
    url = solution_url(exercise, installed_from())
    if url.startswith("file://"):
        return notebook.read(url[len("file://") :])
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "transformer-course" / f"{exercise}.ipynb"
    if not cache.is_file():
        with urllib.request.urlopen(url, timeout=30) as response:
            data = response.read()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(data)
    return notebook.read(cache)


def installed_from():
    "(url, commit) pip recorded for the installed `transformer` (PEP 610 direct_url.json), or (None, None)."
    try:
        from importlib.metadata import distribution

        info = json.loads(distribution("transformer").read_text("direct_url.json") or "{}")
    except Exception:
        return None, None
    return info.get("url"), info.get("vcs_info", {}).get("commit_id")


def solution_url(exercise, origin):
    "Where solutions/<exercise>.ipynb is, for a course installed from `origin` = (url, commit)."
    url, commit = origin
    path = f"solutions/{exercise}.ipynb"
    if url and url.startswith("file://"):
        return f"{url.rstrip('/')}/{path}"
    m = re.match(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?$", url or "")
    repo = m.group(1) if m else REPOSITORY.split("github.com/")[1]
    return f"https://raw.githubusercontent.com/{repo}/{commit or 'main'}/{path}"
