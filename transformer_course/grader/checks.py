"""A question and its verdict: `@question` registers a check, `Miss` is a wrong answer, and the checks of an answer
given as a value (`check_number`, `check_choice`, `check_choices`). The grading process's state lives here too.

The other helpers a check uses: `learner.py` (the learner's names: `need`, `guard`, `need_buffer`), `tensors.py`
(`same`, `rand`, `randint`, `copy_weights`, `scramble`), `ban.py` (what `forbid` names cannot be called)."""

import math
import numbers
from dataclasses import dataclass, field

import torch

LEARNER = "<cell"  # file name prefix of code compiled from the learner's cells
NOTEBOOK_PATH = None  # the notebook being graded (set in each question's process)
GRADING = False  # True inside a question's process: a `q1.check()` in a graded cell does nothing there
CELLS = None  # (setup, {number: source}) when a check runs from a notebook's kernel (practice.py)


class Miss(Exception):
    "A wrong answer: `reason` is one short line, `hint` says more (input, expected vs got), never the solution."

    def __init__(self, reason, hint=""):
        super().__init__(reason)
        self.reason, self.hint = reason, hint


@dataclass
class Question:
    number: int
    points: int
    title: str
    check: callable
    forbid: tuple = field(default_factory=tuple)  # dotted names the learner's cell may not use
    timeout: float | None = None  # seconds this question may take, if more than the grader's limit
    hint: str = ""  # a nudge the learner asks for with q.hint(): never the answer


def question(registry, number, points, title, forbid=(), timeout=None, hint=""):
    """Decorator: register `check(ns)` as question `number` worth `points`. `timeout` raises the time
    limit for this one question (a training run); the grader's own limit applies when it is larger.
    `hint` is what `qN.hint()` prints in the notebook."""

    def register(check):
        registry.append(Question(number, points, title, check, tuple(forbid), timeout, hint))
        return check

    return register


def notebook_cells():
    "(setup, {number: source}) of the notebook being graded: the kernel's cells in a notebook, else the saved file."
    if CELLS is not None:
        return CELLS
    from . import notebook

    return notebook.cells(notebook.read(NOTEBOOK_PATH))


def answer(ns, name):
    "The learner's numeric answer `name` as a float."
    value = ns.get(name)
    if value is None:
        raise Miss("not answered yet", f"Set `{name}` to a number.")
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise Miss(f"`{name}` is a tensor with {value.numel()} elements, not a number")
        value = value.item()
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise Miss(f"`{name}` is not a number", f"`{name}` is a {type(value).__name__}.") from None
    if not math.isfinite(value):
        raise Miss(f"`{name}` is {value}")
    return value


def check_number(ns, name, expected, rel=1e-3, abs_tol=1e-4, integer=False):
    """The learner's `name` must be close to `expected`; rel=0 asks for an exact integer. The hint never shows `expected`.
    integer=True also asks for an int (Python's, numpy's, or a one-element integer tensor), for a number that code takes
    as an int, such as a layer's width: a float does not pass, even when its value is a whole number."""
    value = ns.get(name)
    if integer and value is not None and not _is_int(value):
        kind = f"a {value.dtype} tensor" if isinstance(value, torch.Tensor) else f"a {type(value).__name__}"
        raise Miss(
            f"`{name}` is not an int",
            f"`{name}` is {kind}; the question asks for an int: compute it with integer arithmetic.",
        )
    got = answer(ns, name)
    if not math.isclose(got, expected, rel_tol=rel, abs_tol=abs_tol):
        direction = "too large" if got > expected else "too small"
        if rel == 0:
            shown = f"{got:,.0f}" if got == int(got) else f"{got:.6g}"
            raise Miss("wrong value", f"`{name}` = {shown} is {direction} (an exact integer is expected).")
        raise Miss(
            "wrong value",
            f"`{name}` = {got:.6g} is {direction} (a relative error up to {rel:g} is accepted).",
        )


def _is_int(value):
    if isinstance(value, torch.Tensor):
        return (
            value.numel() == 1
            and not value.is_floating_point()
            and not value.is_complex()
            and value.dtype != torch.bool
        )
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_choice(ns, name, correct, options):
    """Multiple choice: the learner's `name` must be the letter `correct` (one of `options`, e.g. "abcd").
    Upper or lower case and surrounding spaces or brackets are accepted; the hint never names the answer."""
    value = ns.get(name)
    if value is None:
        raise Miss("not answered yet", f"Set `{name}` to one letter out of {', '.join(repr(o) for o in options)}.")
    letter = value.strip().strip("()[]. ").lower() if isinstance(value, str) else None
    if letter not in options:
        raise Miss(
            f"`{name}` is not one of the options",
            f"Got {value!r}; answer with one letter out of {', '.join(repr(o) for o in options)}.",
        )
    if letter != correct:
        raise Miss(
            "wrong choice",
            f"`{name}` = {letter!r} is not the answer; rerun the experiment the question "
            "describes and compare the options with what you measure.",
        )


def check_choices(ns, name, correct, options):
    """Several right options: the learner's `name` must be a string or collection of letters naming exactly
    the options in `correct` (e.g. "ac" or ["a", "c"]). The hint says how many were wrong, not which."""
    value = ns.get(name)
    if value is None:
        raise Miss("not answered yet", f'Set `{name}` to the letters of every true statement, e.g. "ab".')
    if isinstance(value, str):
        letters = {c for c in value.lower() if c.isalpha()}
    elif isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in value):
        letters = {v.strip().lower() for v in value}
    else:
        raise Miss(f"`{name}` is not a string of letters", f"Got a {type(value).__name__}.")
    unknown = sorted(letters - set(options))
    if unknown:
        raise Miss(f"`{name}` names options that do not exist", f"Unknown: {unknown}; options are {sorted(options)}.")
    wrong = len(letters ^ set(correct))
    if wrong:
        raise Miss("wrong choice", f"{wrong} of the {len(options)} statements are judged wrongly.")
