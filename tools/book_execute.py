"""Execute the book's chapters into its jupyter-cache, several at once, before the book is built.

    python tools/book_execute.py          # then: jupyter-book build .   (`make book` runs both)

The book is built with `execute_notebooks: cache` (_config.yml): myst-nb takes every chapter's
outputs from the jupyter-cache in _build/.jupyter_cache, and executes a chapter itself (one
after another, while Sphinx reads) only when the cache has no record for it. This script fills
the cache first, so the build only reads it:
- the cache is emptied, so every chapter of _toc.yml is executed at every build;
- the chapters run in `$BOOK_JOBS` processes (default: one per core), each through
  jupyter-cache's own `local-serial` executor (the chapter's folder as working directory, the
  `timeout` and `allow_errors` of _config.yml's `execute` section);
- the slowest chapters start first (`book_execution_seconds` in _config.yml's `execute`
  section, measured; a chapter not listed counts 10 s) and each process takes the next chapter
  when it is free, so the processes end at about the same time;
- every kernel gets its share of the cores as PyTorch threads (`OMP_NUM_THREADS`, unless set),
  and TRANSFORMER_FIGURES_SITE=1 (the figures leave plotly.js to the site, tools/book_figures.py).
Exit status 1 when a chapter fails: each failing chapter is reported with its traceback, after
all the others have run. The seconds each chapter took are printed at the end.
"""
from __future__ import annotations

import concurrent.futures
import logging
import os
import shutil
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from transformer_course.figures import SITE_ENV  # noqa: E402

DEFAULT_SECONDS = 10


def cores() -> int:
    "The cores this process may run on."
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def jobs() -> int:
    "The number of chapters executed at once: $BOOK_JOBS, else the number of cores."
    value = os.environ.get("BOOK_JOBS", "").strip()
    if not value:
        return cores()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"BOOK_JOBS={value!r}: give a whole number of processes, 1 or more")
    return int(value)


def config(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_config.yml").read_text()) or {}


def cache_path(root: Path = ROOT) -> Path:
    "Where myst-nb looks for the cache: `execute.cache`, else _build/.jupyter_cache."
    path = (config(root).get("execute") or {}).get("cache") or "_build/.jupyter_cache"
    return (root / path).resolve()


def toc_docs(root: Path = ROOT) -> list[str]:
    "Document names listed in _toc.yml (root first), without suffix: 'chapters/01_attention'."
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    docs = [toc["root"]]

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                docs.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))
            for part in e.get("parts") or []:
                walk(part.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [str(Path(d).with_suffix("")) if Path(d).suffix in {".ipynb", ".md"} else d for d in docs]


def chapters(root: Path = ROOT) -> list[Path]:
    "The notebooks of _toc.yml (Markdown pages have nothing to execute)."
    paths = [root / f"{doc}.ipynb" for doc in toc_docs(root)]
    return [p for p in paths if p.is_file()]


def slowest_first(docs: list[str], seconds: dict) -> list[str]:
    "`docs` in the order to start them: the longest first (ties keep their order)."
    return sorted(docs, key=lambda d: -seconds.get(d, DEFAULT_SECONDS))


def _execute_one(cache_dir: str, uri: str, timeout, allow_errors) -> tuple[str, bool]:
    "In a worker process: execute one notebook of the cache's project with jupyter-cache."
    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    logger = logging.getLogger(f"book_execute.{Path(uri).stem}")
    logger.setLevel(logging.ERROR)       # a failing cell is reported once, by execute() below
    executor = load_executor("local-serial", get_cache(cache_dir), logger=logger)
    result = executor.run_and_cache(filter_uris=[uri], timeout=timeout,
                                    allow_errors=allow_errors, force=True)
    return uri, uri in result.succeeded


def execute(root: Path = ROOT, nproc: int | None = None, out=print) -> int:
    """Empty the cache, execute every chapter into it in `nproc` processes; 0 when all ran,
    1 when one or more failed (each reported with its traceback)."""
    from jupyter_cache import get_cache

    root = Path(root).resolve()
    nproc = nproc or jobs()
    execute_cfg = config(root).get("execute") or {}
    seconds = execute_cfg.get("book_execution_seconds") or {}
    timeout = execute_cfg.get("timeout", 30)
    allow_errors = bool(execute_cfg.get("allow_errors", False))
    if execute_cfg.get("run_in_temp"):
        raise ValueError("run_in_temp: true is not supported: chapters run in their own folder")
    os.environ[SITE_ENV] = "1"                       # the kernels inherit the environment
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, cores() // nproc)))

    cache_dir = cache_path(root)
    shutil.rmtree(cache_dir, ignore_errors=True)
    cache = get_cache(str(cache_dir))
    docs = {p.relative_to(root).with_suffix("").as_posix(): p for p in chapters(root)}
    for p in docs.values():
        cache.add_nb_to_project(str(p))
    order = slowest_first(list(docs), seconds)

    out(f"executing {len(order)} chapters in {nproc} processes "
        f"(OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}) into {cache_dir}")
    start, failed = time.monotonic(), []
    # a process takes the next chapter of `order` as soon as it is free
    with concurrent.futures.ProcessPoolExecutor(max_workers=nproc) as pool:
        futures = [pool.submit(_execute_one, str(cache_dir), str(docs[d]), timeout, allow_errors)
                   for d in order]
        for doc, future in zip(order, futures):
            try:
                ok = future.result()[1]
            except Exception as error:               # the worker itself broke
                ok = False
                out(f"{doc}.ipynb: ERROR: could not execute the chapter: {error!r}")
            if not ok:
                failed.append(doc)

    records = {r.uri: r for r in cache.list_project_records()}
    took = {}
    for doc in order:
        record = cache.get_cached_project_nb(str(docs[doc]))
        took[doc] = record.data.get("execution_seconds") if record is not None else None
    for doc in failed:
        record = records.get(str(docs[doc]))
        out(f"{doc}.ipynb: ERROR: executing the chapter failed (a cell raised or timed out):")
        out((record.traceback if record is not None and record.traceback else "(no traceback)").rstrip())
    out(f"executed {len(order) - len(failed)} of {len(order)} chapters in {nproc} processes in "
        f"{time.monotonic() - start:.0f} s; seconds each: "
        + ", ".join(f"{d.split('/')[-1]} {t:.0f}" for d, t in took.items() if t is not None))
    return 1 if failed else 0


def main(argv=None) -> int:
    return execute(out=lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
