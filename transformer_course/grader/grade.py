"""Grade one notebook: each question in its own forked process, with a time limit and capped output."""

import ast
import io
import json
import linecache
import multiprocessing
import os
import signal
import sys
import time
import traceback
from pathlib import Path

from . import ban, checks, notebook
from .ban import UsedReference
from .checks import LEARNER, Miss

OUTPUT_LIMIT = 100_000  # characters a question's code may print before it is stopped


class OutputTooLarge(Exception):
    pass


class CappedOutput(io.TextIOBase):
    "Swallows what learner code prints, and stops it when it prints too much."

    def __init__(self):
        self.size = 0
        self.exceeded = False

    def writable(self):
        return True

    def write(self, s):
        self.size += len(s)
        if self.size > OUTPUT_LIMIT:
            self.exceeded = True
            raise OutputTooLarge(f"printed more than {OUTPUT_LIMIT:,} characters")
        return len(s)


def _compile(src, filename):
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)  # for tracebacks
    return compile(src, filename, "exec")


def _where(exc):
    "The learner's line an exception came from, e.g. ' (line 7: return x @ w)'."
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(LEARNER)]
    if not frames:
        return ""
    f = frames[-1]
    return f" (line {f.lineno}: {(f.line or '').strip()[:60]})"


def _describe(exc):
    try:
        text = str(exc).strip()
    except Exception:  # an exception whose str() itself fails
        text = ""
    return f"{type(exc).__name__}: {text.splitlines()[0][:120] if text else ''}".rstrip(": ")


QUESTIONS_DIR = str(Path(__file__).resolve().parent / "questions")


def _statement(filename, lineno):
    "The whole statement of a question's file around line `lineno`, on one line (a call may span several)."
    lines = linecache.getlines(filename)
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    around = [s for s in ast.walk(tree) if isinstance(s, ast.stmt) and s.lineno <= lineno <= s.end_lineno]
    inner = min(around, key=lambda s: s.end_lineno - s.lineno, default=None)
    if inner is None or isinstance(inner, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With)):
        return lines[lineno - 1].strip()
    return (
        " ".join(line.strip() for line in lines[inner.lineno - 1 : inner.end_lineno])
        .replace("( ", "(")
        .replace(", )", ")")
    )


def _checking(exc):
    "The grader's statement that was running when learner code failed, e.g. '; the grader was running: mine(x, mask)'."
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(QUESTIONS_DIR)]
    if not frames or not frames[-1].line:
        return ""
    return f"; the grader was running `{_statement(frames[-1].filename, frames[-1].lineno)[:120]}`"


def _short(text, limit=600):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _run_question(q, setup, source):
    "Runs in the child: setup cell, the question's cell, then the check. Returns (passed, reason, hint)."
    ban.forbid(q.forbid)
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    stage = "the setup cell"
    try:
        exec(_compile(setup, f"{LEARNER} setup>"), ns)
        stage = "your cell"
        exec(_compile(source, f"{LEARNER} question {q.number}>"), ns)
        stage = "your code"
        q.check(ns)
    except Miss as m:
        return False, m.reason, m.hint
    except NotImplementedError:
        return False, "not answered yet", "Replace `raise NotImplementedError()` with your code."
    except SyntaxError as e:
        return False, f"syntax error in {stage} (line {e.lineno})", f"{e.msg}: {(e.text or '').strip()}"
    except OutputTooLarge as e:
        return False, f"{stage} {e}", "Remove prints inside loops; the grader discards output anyway."
    except UsedReference as e:
        return False, "uses the package's own answer", str(e)
    except RecursionError as e:
        return False, f"{stage} recursed too deeply", _describe(e) + _where(e) + _checking(e)
    except BaseException as e:  # anything else the learner's code raised, even SystemExit
        return False, f"{stage} raised {type(e).__name__}", _describe(e) + _where(e) + _checking(e)
    return True, "", ""


def _child(conn, q, setup, source, path=None):
    try:
        if hasattr(os, "setpgrp"):
            os.setpgrp()  # own process group: a time-out also ends what it started
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        out = CappedOutput()
        sys.stdout = sys.stderr = out
        import torch

        torch.set_num_threads(1)
        checks.NOTEBOOK_PATH = path
        checks.GRADING = True
        passed, reason, hint = _run_question(q, setup, source)
        if ban.USED:
            passed, reason, hint = (
                False,
                "uses the package's own answer",
                f"This question asks you to write it yourself: do not use `{ban.USED[0]}`.",
            )
        elif out.exceeded and "printed more than" not in reason:  # the learner's code caught OutputTooLarge
            passed, reason, hint = (
                False,
                f"your code printed more than {OUTPUT_LIMIT:,} characters",
                "Remove prints inside loops; the grader discards output anyway.",
            )
        conn.send((bool(passed), _short(str(reason), 200), _short(str(hint))))
        conn.close()
    finally:
        os._exit(0)  # no atexit handlers, no flushing of learner state


def grade_question(q, setup, source, timeout, path=None):
    "Grade one question in a forked process; never raises. `path`: the notebook (the capstone reads its neighbours)."
    if source is None:
        return False, "cell not found", f"No code cell starts with `# Question {q.number} (...)`."
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, q, setup, source, path), daemon=True)
    proc.start()
    send.close()
    try:
        if receive.poll(timeout):
            return receive.recv()
        return (
            False,
            f"took longer than {timeout:g} s",
            "Look for an infinite loop or a very large computation.",
        )
    except (EOFError, OSError):
        proc.join(1)
        return (
            False,
            f"crashed (exit code {proc.exitcode})",
            "The process running your code died, e.g. out of memory or os._exit().",
        )
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child and anything it started
        except (ProcessLookupError, PermissionError, AttributeError):
            pass
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


def grade(path, timeout=30.0, only=None):
    """Grade the notebook at `path`; returns the result as a dict (its fields: transformer_course/grader/README.md).
    `only`: grade just these question numbers (each question is graded on its own, so the others'
    results would not change)."""
    from .questions import chapter

    nb = notebook.read(path)
    name = notebook.chapter_of(nb, path)
    chap, questions = chapter(name)
    if chap is None:
        raise ValueError(f"{path}: not an exercise notebook (no grader.chapter in its metadata and no NN_ in its name)")
    setup, sources = notebook.cells(nb)
    if only is not None:
        questions = [q for q in questions if q.number in set(only)]
    results = []
    for q in questions:
        start = time.perf_counter()
        limit = max(timeout, q.timeout or 0)
        passed, reason, hint = grade_question(q, setup, sources.get(q.number), limit, Path(path).resolve())
        results.append(
            dict(
                number=q.number,
                title=q.title,
                points=q.points if passed else 0,
                max_points=q.points,
                passed=passed,
                reason=reason,
                hint=hint,
                seconds=round(time.perf_counter() - start, 2),
            )
        )
    return dict(
        notebook=str(path),
        exercise=chap,
        score=sum(r["points"] for r in results),
        max_score=sum(q.points for q in questions),
        questions=results,
    )


def table(result, hints=False):
    "The result as the text the command prints."
    rows = [("#", "Question", "Points", "Result")]
    for r in result["questions"]:
        rows.append(
            (
                str(r["number"]),
                r["title"],
                f"{r['points']}/{r['max_points']}",
                "ok" if r["passed"] else r["reason"],
            )
        )
    w = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{result['notebook']} (exercise {result['exercise']})"]
    for i, row in enumerate(rows):
        lines.append(f"  {row[0]:>{w[0]}}  {row[1]:<{w[1]}}  {row[2]:>{w[2]}}  {row[3]}")
        r = result["questions"][i - 1] if i else None
        if hints and r and not r["passed"] and r["hint"]:
            lines.append(f"  {'':>{w[0]}}  {'':<{w[1]}}  {'':>{w[2]}}    hint: {r['hint']}")
    lines.append(f"  Total: {result['score']}/{result['max_score']} points")
    return "\n".join(lines)


def write_json(result, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")


def report(json_dir="grades", exercises_dir=None):
    """One table of every exercise from the JSON results in `json_dir`: points, maximum, and the questions
    missed with their reasons. Exercises without a result are listed as not graded yet; a result older
    than its notebook is marked so."""
    from .build import ROOT
    from .questions import NOTEBOOKS, chapter

    json_dir = Path(json_dir)
    exercises_dir = Path(exercises_dir) if exercises_dir else ROOT / "exercises"
    rows, total, most = [], 0, 0
    for name in NOTEBOOKS:
        _, questions = chapter(name)
        top = sum(q.points for q in questions)
        most += top
        path = json_dir / f"{name}.json"
        if not path.is_file():
            rows.append((name, "-", str(top), "not graded yet"))
            continue
        try:
            result = json.loads(path.read_text())
            score, misses = int(result["score"]), [q for q in result["questions"] if not q["passed"]]
        except (ValueError, KeyError, TypeError):
            rows.append((name, "?", str(top), f"unreadable result {path}"))
            continue
        total += score
        note = "; ".join(f"q{q['number']}: {q['reason']}" for q in misses) or "all done"
        notebook_file = exercises_dir / f"{name}.ipynb"
        if notebook_file.is_file() and notebook_file.stat().st_mtime > path.stat().st_mtime:
            note += "  (notebook changed since: grade it again)"
        rows.append((name, str(score), str(top), note))
    rows.append(("total", str(total), str(most), ""))
    head = ("Exercise", "Points", "Of", "Misses")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(3)]
    lines = [f"  {r[0]:<{w[0]}}  {r[1]:>{w[1]}}  {r[2]:>{w[2]}}  {r[3]}".rstrip() for r in [head] + rows]
    return "\n".join(lines)
