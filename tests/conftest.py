"""Test-session settings and fixtures shared by the test files.

A test whose prerequisite is missing (the Multi30k files, Chromium for the browser checks) is
skipped with the reason, except in CI (the environment variable CI set, as .ci/run does:
CI=true), where it fails: CI must run every test. `skip_or_fail` is that rule.
"""

import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The offline copy of Multi30k that machines without internet keep next to the repository.
SHARED_COPY = ROOT.parent / "shared" / "data" / "multi30k"
# The files the tests read: the splits the package loads by default.
MULTI30K_FILES = tuple(f"{split}.{lang}.gz" for split in ("train", "val", "test_2016_flickr") for lang in ("de", "en"))
# tests/test_book.py writes here what its build did (chapters executed, pages read again);
# the terminal summary repeats it.
BOOK_DECISION = ROOT / "_build" / "book.tested.txt"
# tests/test_book.py writes what the translator box measured in Chromium (load and translation
# times, the site's added size: a benchmark, not asserted); the terminal summary repeats it.
TRANSLATOR_TIMES = ROOT / "_build" / "translator.tested.txt"


# The test files that take longest, longest first. Seconds on the 2-core machine the course is
# tested on (2026-11), one file at a time: the translation commands 370 (about 60 fresh
# interpreters), the grader 250 (the capstone's full marks: a toy training of the learner's
# model, and one of the package's unless its result is cached, see
# transformer_course/grader/capstone.py); the book's checks about 150 after `make book` (whose
# build the tests' build then leaves as it is), about 420 more when the tests execute the
# chapters; the training loop 170 in one test alone (torch.compile's first compilation, on a
# busy machine); the capstone two toy trainings of about 45 s each (a third when the package's
# run is not cached yet).
# Under `make test` (pytest-xdist, --dist loadfile) a worker takes the next file in this order as
# soon as it is almost done with its own, so the long files start at once and short ones fill
# the end. The other files follow in their usual order.
LONGEST_FIRST = [
    "test_book.py",
    "test_translate.py",
    "test_grader.py",
    "test_loop.py",
    "test_capstone.py",
    "test_ddp.py",
    "test_install_cell.py",
    "test_onnx.py",
    "test_subwords.py",
    "test_figures.py",
    "test_generation.py",
    "test_bench_training.py",
    "test_data.py",
]


def pytest_configure(config):
    # pytest-xdist >= 3.6 reorders the files by their number of tests (--loadscope-reorder, on by
    # default): keep the order of LONGEST_FIRST instead
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items):
    """The files in the order of LONGEST_FIRST, the book's tests first: under pytest-xdist the worker
    that gets tests/test_book.py starts the book build (nothing to do right after `make book`) at
    once, while the other workers share the rest, longest first."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def in_ci() -> bool:
    "True under CI: the variable CI is set to anything but '', '0', 'false' or 'no' (.ci/run: CI=true)."
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def skip_or_fail(reason: str):
    "A prerequisite of the test is missing: skip it with `reason`, or under CI fail it."
    if in_ci():
        pytest.fail(f"{reason} (CI={os.environ.get('CI')}: a test that cannot run fails in CI)", pytrace=False)
    pytest.skip(reason)


def _complete(folder) -> bool:
    return folder is not None and all((Path(folder) / n).is_file() for n in MULTI30K_FILES)


def shared_data() -> Path:
    """The folder of the Multi30k files: $MULTI30K_DIR when it is set, else the copy next to the
    repository (SHARED_COPY), else the package's download cache (where `make book` downloads it).
    Missing: the test is skipped, but fails under CI. The tests never download: they must not touch
    the network."""
    from transformer.data import default_cache_folder

    given = os.environ.get("MULTI30K_DIR")
    places = [Path(given).expanduser()] if given else [SHARED_COPY, default_cache_folder()]
    for folder in places:
        if _complete(folder):
            return folder
    where = " or ".join(str(p) for p in places)
    skip_or_fail(
        f"Multi30k files ({', '.join(MULTI30K_FILES)}) not found in {where}: set MULTI30K_DIR to a folder holding them"
    )


# ------------------------------------------------------------------ the e2e mark
# `make quicktest` (-m "not e2e") promises no book build and no real training: every test that
# trains a model carries the e2e mark. Helpers that train call require_e2e, which fails a test
# without the mark (the test running now, fixtures' setup included, is _CURRENT[0]).
_CURRENT = [None]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _CURRENT[0] = item


def require_e2e(what: str):
    "Fail the running test unless it carries the e2e mark: it does something slow (`what`)."
    item = _CURRENT[0]
    if item is not None and item.get_closest_marker("e2e") is None:
        pytest.fail(
            f"{item.nodeid}: {what}, but the test lacks @pytest.mark.e2e (`make quicktest` skips the tests that train)",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def data_dir():
    "The folder of the Multi30k files (shared_data: the test is skipped without them, fails in CI)."
    return shared_data()


@pytest.fixture(scope="module")
def train(data_dir):
    "Multi30k's training split, as (german, english) pairs."
    from transformer.data import load_split

    return load_split("train", data_dir)


def pytest_sessionstart(session):
    session.config._book_session_start = time.time()


def pytest_terminal_summary(terminalreporter, config):
    "Say what tests/test_book.py's build did: how many chapters it executed, how many pages it read again."
    start = getattr(config, "_book_session_start", None)
    if start and BOOK_DECISION.is_file() and BOOK_DECISION.stat().st_mtime >= start:
        terminalreporter.write_sep("-", "the book")
        terminalreporter.write_line(BOOK_DECISION.read_text().strip())
        if TRANSLATOR_TIMES.is_file() and TRANSLATOR_TIMES.stat().st_mtime >= start:
            terminalreporter.write_line(TRANSLATOR_TIMES.read_text().strip())


def evaluate_model(folder, data_dir, out, *options):
    """transformer-evaluate --model FOLDER on val (options: --limit, --beam, ...), in this process: (the JSON
    it wrote, its translations, one per line)."""
    import json

    from transformer.cli import evaluate_main

    with pytest.raises(SystemExit) as e:
        evaluate_main(
            [
                "--model",
                str(folder),
                "--data",
                str(data_dir),
                "--split",
                "val",
                *map(str, options),
                "--output",
                str(out.with_suffix(".txt")),
                "--json",
                str(out.with_suffix(".json")),
            ]
        )
    assert e.value.code == 0
    return json.loads(out.with_suffix(".json").read_text()), out.with_suffix(".txt").read_text()
