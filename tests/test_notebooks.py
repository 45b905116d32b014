"""Every chapter runs top to bottom under `nbdev-test` (one test per chapter).

The book build (tests/test_book.py) executes every chapter too, in a Jupyter kernel, with
every cell. This is the other way the course runs its chapters: nbdev's test runner, as a
chapter author runs it (`make nbtest`), skipping cells flagged `#| slow`. Both are kept:
a chapter has to work in both, and a failure here names the chapter and shows the cell.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


def test_there_are_chapters():
    assert CHAPTERS, "no notebook in chapters/"


@pytest.mark.parametrize("nb", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_runs(nb):
    nbdev_test = Path(sys.executable).parent / "nbdev-test"
    r = subprocess.run([str(nbdev_test), str(nb.relative_to(ROOT))], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    assert r.returncode == 0, f"nbdev-test failed on {nb.name}:\n{r.stdout[-6000:]}"
