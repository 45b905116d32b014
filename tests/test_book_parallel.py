"""tools/book_parallel.py: how the book build shares the chapters between processes.

The build itself (tests/test_book.py) runs with it; these tests check the split on its own:
each chapter exactly once, no more lists than processes, and a split that a wrong rule (say,
Sphinx's own, consecutive chunks in name order) would not give.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_parallel  # noqa: E402

DOCS = [f"chapters/{i:02d}" for i in range(12)] + ["chapters/index", "chapters/glossary"]
SECONDS = {"chapters/10": 213, "chapters/07": 52, "chapters/08": 39, "chapters/09": 14}


def cost(chunk):
    return sum(SECONDS.get(d, book_parallel.DEFAULT_SECONDS) for d in chunk)


@pytest.mark.parametrize("nproc", [1, 2, 3, 8, 20])
def test_every_chapter_once_in_at_most_nproc_lists(nproc):
    chunks = book_parallel.balanced_chunks(DOCS, nproc, SECONDS)
    assert sorted(d for c in chunks for d in c) == sorted(DOCS)
    assert 1 <= len(chunks) <= nproc and all(chunks)


def test_the_slow_chapters_are_spread_and_the_loads_are_close():
    a, b = book_parallel.balanced_chunks(DOCS, 2, SECONDS)
    slow = "chapters/10"
    assert (slow in a) != (slow in b)
    # the longest chapter alone is 213 s of 418: the other list gets everything it can
    total, heavy = cost(DOCS), max(cost(a), cost(b))
    assert heavy <= max(213, total / 2 + book_parallel.DEFAULT_SECONDS)
    # Sphinx's own split (consecutive runs of names) puts chapters 6 to 11 together
    assert heavy < cost(DOCS[6:12])


def test_book_jobs_from_the_environment(monkeypatch):
    monkeypatch.setenv("BOOK_JOBS", "3")
    assert book_parallel.jobs() == 3
    monkeypatch.delenv("BOOK_JOBS")
    assert book_parallel.jobs() == book_parallel.cores() >= 1
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("BOOK_JOBS", bad)
        with pytest.raises(ValueError, match="BOOK_JOBS"):
            book_parallel.jobs()
