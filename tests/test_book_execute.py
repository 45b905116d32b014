"""tools/book_execute.py: the chapters are executed into the jupyter-cache before the book build.

The whole book (tests/test_book.py) is built this way; these tests check the mechanism on a
book of two small notebooks: a chapter that runs is cached so that myst-nb finds it (the same
lookup as `execute_notebooks: cache`), a chapter whose cell raises is reported and fails the
run, kernels run in the chapter's folder with the figures' site setting; and the order in which
the chapters start keeps the processes about equally busy. Which chapters run again at the next
build is tests/test_book_build.py's subject.
"""
import heapq
import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_execute  # noqa: E402

DOCS = [f"chapters/{i:02d}" for i in range(12)] + ["chapters/index"]
SECONDS = {"chapters/10": 134, "chapters/07": 59, "chapters/08": 43, "chapters/09": 25}


def finish_time(order, nproc, seconds):
    "When the last process ends, each process taking the next chapter of `order` once it is free."
    free = [0.0] * nproc
    for doc in order:
        heapq.heappush(free, heapq.heappop(free) + seconds.get(doc, book_execute.DEFAULT_SECONDS))
    return max(free)


def test_the_slowest_chapters_start_first():
    order = book_execute.slowest_first(DOCS, SECONDS)
    assert sorted(order) == sorted(DOCS)
    assert order[:4] == ["chapters/10", "chapters/07", "chapters/08", "chapters/09"]
    total = sum(SECONDS.get(d, book_execute.DEFAULT_SECONDS) for d in DOCS)      # 351 s
    # two processes: the longest chapter alone is 134 s, so the best is half the total
    assert finish_time(order, 2, SECONDS) <= total / 2 + book_execute.DEFAULT_SECONDS
    # in name order, chapter 10 would start late and the other process would sit idle
    assert finish_time(DOCS, 2, SECONDS) > finish_time(order, 2, SECONDS) + 30


def test_book_jobs_from_the_environment(monkeypatch):
    monkeypatch.setenv("BOOK_JOBS", "3")
    assert book_execute.jobs() == 3
    monkeypatch.delenv("BOOK_JOBS")
    assert book_execute.jobs() == book_execute.cores() >= 1
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("BOOK_JOBS", bad)
        with pytest.raises(ValueError, match="BOOK_JOBS"):
            book_execute.jobs()


def notebook(*sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture
def book(tmp_path):
    "A book of three pages: a chapter that runs, a chapter whose second cell raises, a Markdown page."
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: ch/good\n  - file: ch/bad\n  - file: ch/notes\n")
    (tmp_path / "_config.yml").write_text(
        "execute:\n  execute_notebooks: cache\n  allow_errors: false\n  timeout: 60\n"
        "  book_execution_seconds:\n    ch/bad: 20\n")
    (tmp_path / "intro.md").write_text("# Intro\n")
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "notes.md").write_text("# Notes\n")
    (tmp_path / "ch" / "data.txt").write_text("read from the chapter's folder")
    nbformat.write(notebook("import os\nprint(open('data.txt').read())",
                            "print('site', os.environ.get('TRANSFORMER_FIGURES_SITE'))"),
                   tmp_path / "ch" / "good.ipynb")
    nbformat.write(notebook("x = 1", "raise ValueError('the cell that fails')", "y = 2"),
                   tmp_path / "ch" / "bad.ipynb")
    return tmp_path


def test_chapters_are_executed_into_the_cache_and_a_failing_cell_fails(book, monkeypatch):
    from jupyter_cache import get_cache

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("TRANSFORMER_FIGURES_SITE", "0")          # execute() sets it; undone after
    cache_dir = book_execute.cache_path(book)
    assert cache_dir == book / "_build" / ".jupyter_cache"
    lines = []
    assert book_execute.execute(book, nproc=2, out=lines.append) == 1
    log = "\n".join(lines)
    assert lines.index("ch/bad: executing (not in the cache)") < lines.index("ch/good: executing (not in the cache)")
    assert "ch/bad.ipynb: ERROR" in log and "the cell that fails" in log, log
    assert "ch/good.ipynb: ERROR" not in log, log
    assert "executed 1 of the 2 chapters to run in 2 processes" in log, log

    # what myst-nb does in cache mode: look the notebook up by its code
    cache = get_cache(str(cache_dir))
    record = cache.match_cache_notebook(nbformat.read(book / "ch" / "good.ipynb", 4))
    _, merged = cache.merge_match_into_notebook(nbformat.read(book / "ch" / "good.ipynb", 4))
    outputs = ["".join(o.get("text", "")) for c in merged.cells for o in c.outputs]
    assert outputs == ["read from the chapter's folder\n", "site 1\n"], outputs
    assert record.data["execution_seconds"] > 0
    with pytest.raises(KeyError):                                 # no record of the failing chapter
        cache.match_cache_notebook(nbformat.read(book / "ch" / "bad.ipynb", 4))
    # the next build runs the failing chapter again, and only it
    lines.clear()
    assert book_execute.execute(book, nproc=2, out=lines.append) == 1
    assert [l for l in lines if ": executing (" in l] == ["ch/bad: executing (not in the cache)"]


def test_the_build_settings_are_the_ones_the_script_reads():
    "_config.yml builds from the cache, loads this script as an extension, and the book_parallel Sphinx patch is gone."
    import yaml
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "cache"
    assert config["execute"]["allow_errors"] is False
    assert "book_parallel" not in json.dumps(config)
    assert config["sphinx"]["local_extensions"]["book_execute"] == "tools/"
    # `make site` runs tools/book_build.py, whose first step is this script
    import book_build
    assert "$(BIN)/python tools/book_build.py" in (ROOT / "Makefile").read_text()
    assert book_build.default_commands([])[0][1:] == [str(ROOT / "tools" / "book_execute.py"), str(ROOT)]
