"""Test-session settings and fixtures shared by the test files."""
import os
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items):
    """The book's tests first. Under pytest-xdist (`make test`, --dist loadfile) the worker that gets
    tests/test_book.py then starts the book build, the longest test, at once, while the other
    workers share the rest."""
    items.sort(key=lambda item: item.path.name != "test_book.py")


def shared_data():
    "The offline copy of Multi30k: $MULTI30K_DIR, else ../shared/data/multi30k next to the repository."
    for d in [os.environ.get("MULTI30K_DIR"), ROOT.parent / "shared" / "data" / "multi30k"]:
        if d and (Path(d) / "train.de.gz").is_file():
            return Path(d)
    pytest.skip("Multi30k files not found (set MULTI30K_DIR)")


@pytest.fixture(scope="module")
def data_dir():
    "The folder of the Multi30k files (the test is skipped without them)."
    return shared_data()


@pytest.fixture(scope="module")
def train(data_dir):
    "Multi30k's training split, as (german, english) pairs."
    from transformer.data import load_split
    return load_split("train", data_dir)
