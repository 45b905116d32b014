"""The rule for a missing prerequisite (tests/conftest.py): without Multi30k a test is skipped
with a clear reason, but under CI (CI=true, as .ci/run sets it) it fails; and the tests that
need the data reach it through that rule, not through a skip of their own."""

import gzip
import re
from pathlib import Path

import conftest
import pytest
from conftest import MULTI30K_FILES, in_ci, shared_data, skip_or_fail

TESTS = Path(__file__).resolve().parent


def no_download(url, *args, **kw):
    raise AssertionError(f"the tests tried to download {url}")


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    "No Multi30k anywhere: an empty $MULTI30K_DIR; no copy next to the repository, an empty cache."
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("MULTI30K_DIR", str(empty))
    monkeypatch.setattr(conftest, "SHARED_COPY", tmp_path / "no-shared-copy")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return empty


@pytest.mark.parametrize("value", ["true", "True", "1", "yes"])
def test_missing_data_fails_in_ci(nowhere, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    assert in_ci()
    with pytest.raises(pytest.fail.Exception, match="Multi30k.*CI="):
        shared_data()


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_missing_data_skips_outside_ci_and_says_why(nowhere, monkeypatch, value):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert not in_ci()
    with pytest.raises(pytest.skip.Exception, match=f"not found in {re.escape(str(nowhere))}.*MULTI30K_DIR"):
        shared_data()


def test_a_partial_folder_counts_as_missing(nowhere, monkeypatch):
    monkeypatch.setenv("CI", "true")
    (nowhere / "train.de.gz").write_bytes(gzip.compress(b"ein Hund\n"))
    with pytest.raises(pytest.fail.Exception):
        shared_data()


def test_a_complete_folder_is_used_with_or_without_ci(nowhere, monkeypatch):
    for name in MULTI30K_FILES:
        (nowhere / name).write_bytes(gzip.compress(b"x\n"))
    for ci in ("true", ""):
        monkeypatch.setenv("CI", ci)
        assert shared_data() == nowhere


def test_the_tests_never_download(nowhere, monkeypatch):
    "A machine without the data: no MULTI30K_DIR, no copy next to the repository, an empty cache."
    import urllib.request

    import transformer.data

    monkeypatch.delenv("MULTI30K_DIR")
    monkeypatch.setattr(urllib.request, "urlopen", no_download)
    monkeypatch.setattr(urllib.request, "urlretrieve", no_download)
    monkeypatch.setattr(transformer.data, "fetch_url", no_download)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not found in .*cache"):
        shared_data()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        shared_data()


def test_skip_or_fail(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no chromium"):
        skip_or_fail("no chromium")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        skip_or_fail("no chromium")


def test_no_test_file_skips_on_missing_data_by_itself():
    """The data is reached through conftest's data_dir fixture only: a test file that looked for
    Multi30k itself and skipped would escape the rule above."""
    offenders = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name in ("conftest.py", Path(__file__).name):
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"shared.{0,5}data|MULTI30K_DIR.{0,40}(or|skip)", text) and re.search(r"skip", text):
            offenders.append(path.name)
    assert offenders == []


def test_a_test_that_trains_without_the_e2e_mark_fails():
    "require_e2e (tests/conftest.py), which the train command's helper calls when a model was trained."
    import conftest as c

    class Item:
        nodeid, marks = "tests/test_x.py::test_y", {}

        def get_closest_marker(self, name):
            return self.marks.get(name)

    item, running = Item(), c._CURRENT[0]
    c._CURRENT[0] = item
    try:
        with pytest.raises(pytest.fail.Exception, match="test_y: trained a model, but the test lacks "):
            c.require_e2e("trained a model")
        item.marks = {"e2e": pytest.mark.e2e.mark}
        c.require_e2e("trained a model")  # marked: nothing happens
    finally:
        c._CURRENT[0] = running


def test_the_e2e_mark_is_registered():
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    pyproject = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("e2e:") for m in markers)
    assert '-m "not e2e"' in (TESTS.parent / "Makefile").read_text()
