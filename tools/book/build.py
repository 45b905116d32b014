"""Build the book (`make site`, `make book`), doing again only what changed since the last build.

    python -m tools.book.build [jupyter-book flags]       # from the repository's root

1. What jupyter-cache and Sphinx do not watch, watched coarsely: a digest of what any chapter may
   read (INPUTS, by content; Python and the installed distributions) is kept in _build/book.inputs.
   When it changed (or on a first build) the jupyter-cache is cleared and Sphinx's environment
   (_build/.doctrees) removed: every chapter is executed, every page read again. When only the
   book's settings or extensions changed (SETTINGS), every page is read again, nothing executed.
2. jupyter-cache's `local-parallel` executor executes, one per core, the chapters (chapters/) whose
   outputs its cache (_build/.jupyter_cache) does not hold for their code cells (its own hash: a
   chapter whose code changed runs again), each in its folder, with _config.yml's `timeout` and
   `allow_errors`. A failing chapter fails the build once all have run, with its traceback.
3. `jupyter-book build . FLAGS` takes the outputs from the cache (`execute_notebooks: cache`) and
   Sphinx reads only the pages that changed. A failed build removes Sphinx's environment, so that
   the next one reads every page again and repeats the warnings. Its output goes to _build/book.log.
Lines of its own start with "book: "; the last says what was executed and what Sphinx read."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from importlib import metadata
from pathlib import Path

import yaml

ROOT, BUILD = Path(__file__).resolve().parents[2], "_build"
CACHE = f"{BUILD}/.jupyter_cache"  # where myst-nb's `cache` mode looks (jupyter-book's default)
DOCTREES, LOG = f"{BUILD}/.doctrees", f"{BUILD}/book.log"  # Sphinx's environment; the build's log
# what the chapters read: a change executes every chapter again
INPUTS = ("transformer", "transformer_course", "models", "results", "pyproject.toml")
# what decides how pages are read besides their sources: a change has Sphinx read every page again
SETTINGS = ("tools/book", "_config.yml", "_toc.yml")
SKIP = {"__pycache__", ".ipynb_checkpoints"}  # never inputs


def digest(root: Path, paths, extra=()) -> str:
    "One digest of every file under `paths` (name and content) and of the strings `extra`."
    h = hashlib.sha256("\n".join(extra).encode())
    for top in paths:
        for f in [root / top] if (root / top).is_file() else sorted((root / top).rglob("*")):
            if f.is_file() and not SKIP & set(f.relative_to(root).parts):
                h.update(f"\0{f.relative_to(root).as_posix()}\0".encode() + f.read_bytes())
    return h.hexdigest()


def environment() -> list[str]:
    "Python's version and 'name==version' of every distribution installed in this environment."
    folders = sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")})
    found = metadata.distributions(path=folders)
    return [sys.version] + sorted({f"{d.metadata['Name']}=={d.version}" for d in found if d.metadata["Name"]})


def changed(root: Path, name: str, value: str) -> bool:
    "Whether _build/<name> held another value than `value` (or none); it holds `value` afterwards."
    path = root / BUILD / name
    old = path.read_text() if path.is_file() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value)
    return old != value


def invalidate(root: Path, out) -> None:
    "Step 1: clear the cache and Sphinx's environment when what they do not watch changed."
    inputs = changed(root, "book.inputs", digest(root, INPUTS, environment()))
    settings = changed(root, "book.settings", digest(root, SETTINGS))
    if inputs:
        out("book: the course's code, models/, results/, pyproject.toml or the environment changed")
        out("book: (or there was no build before): every chapter is executed again")
        if (root / CACHE).is_dir():
            from jupyter_cache import get_cache

            get_cache(str(root / CACHE)).clear_cache()
    if inputs or settings:
        out("book: every page is read again" + ("" if inputs else " (the book's settings changed)"))
        shutil.rmtree(root / DOCTREES, ignore_errors=True)


def execute(root: Path, out) -> tuple[int, str]:
    "Step 2: (exit status, what was executed)."
    from jupyter_cache import executors, get_cache

    cfg = (yaml.safe_load((root / "_config.yml").read_text()) or {}).get("execute") or {}
    cache = get_cache(str(root / CACHE))
    chapters = [str(p) for p in sorted((root / "chapters").rglob("*.ipynb")) if not SKIP & set(p.parts)]
    for record in [r for r in cache.list_project_records() if r.uri not in chapters]:  # renamed, removed
        cache.remove_nb_from_project(record.pk)
    for path in chapters:
        cache.add_nb_to_project(path)
    todo = [record.uri for record in cache.list_unexecuted()]
    if not todo:  # right after a build: nothing to execute
        return 0, f"executed 0 of the {len(chapters)} chapters (all taken from the cache)"
    names = ", ".join(Path(uri).relative_to(root).as_posix() for uri in todo)
    out(f"book: executing {len(todo)} of the {len(chapters)} chapters, {os.cpu_count()} at a time: {names}")
    os.environ["TRANSFORMER_FIGURES_SITE"] = "1"  # the figures leave plotly.js to the site
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per chapter (the kernels inherit both)
    start, log = time.monotonic(), logging.getLogger(__name__)
    log.setLevel(logging.INFO)  # the workers report each chapter on stderr
    limits = dict(timeout=cfg.get("timeout", 30), allow_errors=bool(cfg.get("allow_errors", False)))
    run = lambda kind, uris: executors.load_executor(kind, cache, logger=log).run_and_cache(filter_uris=uris, **limits)
    first = run("local-parallel", todo)  # a chapter not run or not cached (the workers can race): again, alone
    again = run("local-serial", first.errored) if first.errored else type(first)()
    result = type(first)(first.succeeded + again.succeeded, first.excepted + again.excepted, again.errored)
    for uri in result.excepted:
        out(f"{Path(uri).relative_to(root)}: ERROR: executing the chapter failed (a cell raised or timed out):")
        out((cache.get_project_record(uri).traceback or "").rstrip())
    for uri in result.errored:
        out(f"{Path(uri).relative_to(root)}: ERROR: the chapter could not be executed (see the log above)")
    failed = len(result.excepted) + len(result.errored)
    seconds = f"{time.monotonic() - start:.0f} s" + (f", {failed} failed" if failed else "")
    return (1 if failed else 0), f"executed {len(result.succeeded)} of the {len(chapters)} chapters in {seconds}"


def sphinx(root: Path, flags, out) -> tuple[int, str]:
    "Step 3: (exit status, the pages Sphinx read), its output printed and written to the log."
    read, jb = "no page", Path(sys.executable).parent / "jupyter-book"
    with open(root / LOG, "w") as log:
        pipe = dict(stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        proc = subprocess.Popen([str(jb), "build", ".", *flags], cwd=root, **pipe)
        for line in proc.stdout:
            out(line.rstrip("\n"))
            log.write(line)
            found = re.search(r"\d+ added, \d+ changed, \d+ removed", re.sub(r"\x1b\[[0-9;]*m", "", line))
            read = found.group(0) if found else read
    if proc.wait():
        shutil.rmtree(root / DOCTREES, ignore_errors=True)  # the next build repeats the warnings
    return proc.returncode, f"Sphinx: {read}"


def build(root: Path = ROOT, flags=(), out=print) -> int:
    "Build the book in `root`: 0, or the exit status of the step that failed."
    invalidate(root := Path(root).resolve(), out)
    rc, executed = execute(root, out)
    if rc == 0:
        rc, read = sphinx(root, flags, out)
        executed += f"; {read}"
    out(f"book: {'failed' if rc else 'built'}; {executed}")
    return rc


if __name__ == "__main__":
    sys.exit(build(ROOT, sys.argv[1:], out=lambda line: print(line, flush=True)))
