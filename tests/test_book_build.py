"""tools/book_build.py: the book build is stamped with everything it was made from, and
tests/test_book.py checks `make book`'s build instead of building again only when that stamp
matches the inputs of now and the build's outputs are untouched.

Checked on a small fake repository, with stand-in build steps: every kind of input changes the
record (and a stale build is then rebuilt), the folders nothing reads do not, a failing or
disturbed build leaves no stamp.
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_build  # noqa: E402

# the files of a fake repository that the book is made from, one per kind of input
INPUTS = ["chapters/01_attention.ipynb", "chapters/cheatsheet.md", "transformer/model.py",
          "transformer_course/figures/__init__.py", "transformer_course/grader/__main__.py",
          "tools/book_figures.py", "_config.yml", "_toc.yml", "Makefile", "pyproject.toml",
          "models/de-en-cpu/card.json", "results/cpu/checkpoint-val.json", "runs/cpu/metrics.jsonl",
          ".cache/mathjax/static/mathjax/tex-chtml.js", "exercises/01_attention.ipynb",
          "references.bib", "data/notes.txt", "transformer.egg-info/entry_points.txt",
          "transformer_course/tests/fixture.json", "chapters/grades.md"]
# files the build never reads
IGNORED = ["tests/test_book.py", "_build/html/index.html", ".git/HEAD", ".scratch/notes.md",
           "grades/01.json", "chapters/__pycache__/x.cpython-311.pyc", "transformer/y.pyc",
           ".venv/lib/site.py", ".pytest_cache/v/x", "transformer/.ipynb_checkpoints/model-checkpoint.py"]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    "A fake repository, a Multi30k folder, and a fixed Python environment (its own test below)."
    root = tmp_path / "repo"
    for name in INPUTS + IGNORED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{name}\n")
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    data = tmp_path / "multi30k"
    data.mkdir()
    (data / "train.de.gz").write_bytes(b"ein Hund\n")
    monkeypatch.setenv("MULTI30K_DIR", str(data))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setattr(book_build, "python_environment", lambda: {"distributions": ["torch==2.13.0"]})
    return root


def test_every_input_changes_the_record_and_the_rest_does_not(repo, monkeypatch):
    before = book_build.inputs(repo, ["-W"])
    assert set(INPUTS) == set(before["files"])
    for name in IGNORED:
        (repo / name).write_text("changed\n")
    assert book_build.inputs(repo, ["-W"]) == before
    for name in INPUTS:
        old = (repo / name).read_text()
        (repo / name).write_text(old + "changed\n")
        now = book_build.inputs(repo, ["-W"])
        assert now != before, name
        assert book_build.differences(before, now) == [f"files: {name} changed"]
        (repo / name).write_text(old)
    (repo / "chapters" / "14_new.ipynb").write_text("{}")
    assert book_build.differences(before, book_build.inputs(repo, ["-W"])) == [
        "files: chapters/14_new.ipynb added"]
    (repo / "chapters" / "14_new.ipynb").unlink()
    assert book_build.inputs(repo, ["-W"]) == before
    assert book_build.inputs(repo, ["-W", "-n"]) != before                     # the build's flags


def test_data_and_environment_variables_change_the_record(repo, monkeypatch):
    before = book_build.inputs(repo)
    data = Path(os.environ["MULTI30K_DIR"])
    (data / "train.de.gz").write_bytes(b"zwei Hunde\n")
    assert book_build.differences(before, book_build.inputs(repo)) == ["data: files changed"]
    (data / "train.de.gz").write_bytes(b"ein Hund\n")
    for name, value in [("BOOK_TRAIN_MINUTES", "5"), ("OMP_NUM_THREADS", "2"), ("MULTI30K_DIR", str(repo)),
                        ("TRANSFORMER_MODEL", "/elsewhere"), ("PYTHONHASHSEED", "1"), ("IN_TEST", "1")]:
        with monkeypatch.context() as m:
            m.setenv(name, value)
            assert book_build.inputs(repo) != before, name
    for name in ("BOOK_JOBS", "PYTEST_CURRENT_TEST", "MAKEFLAGS", "PYTHONUNBUFFERED", "TERM"):
        with monkeypatch.context() as m:
            m.setenv(name, "something else")
            assert book_build.inputs(repo) == before, name


def test_ipython_jupyter_and_matplotlib_settings_change_the_record(repo, tmp_path, monkeypatch):
    "Startup files and settings the kernels read, not their histories or runtime files."
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "IPYTHONDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR",
                 "MPLCONFIGDIR"):
        monkeypatch.delenv(name, raising=False)
    startup = home / ".ipython" / "profile_default" / "startup" / "00-course.py"
    startup.parent.mkdir(parents=True)
    (home / ".ipython" / "profile_default" / "history.sqlite").write_bytes(b"1")
    (home / ".local" / "share" / "jupyter" / "runtime").mkdir(parents=True)
    before = book_build.inputs(repo)
    for path in (startup, home / ".jupyter" / "jupyter_nbconvert_config.json",
                 home / ".local" / "share" / "jupyter" / "kernels" / "python3" / "kernel.json",
                 home / ".config" / "matplotlib" / "matplotlibrc"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("changed\n")
        assert book_build.differences(before, book_build.inputs(repo)) == [f"settings: {path} added"], path
        path.unlink()
    (home / ".ipython" / "profile_default" / "history.sqlite").write_bytes(b"2")
    (home / ".local" / "share" / "jupyter" / "runtime" / "kernel-1.json").write_text("{}")
    assert book_build.inputs(repo) == before


def test_the_python_environment_record(tmp_path, monkeypatch):
    "Every file of the environment by size and time (byte-code excepted), every distribution by version."
    prefix = tmp_path / "env"
    (prefix / "lib" / "torch" / "__pycache__").mkdir(parents=True)
    (prefix / "lib" / "torch" / "ops.py").write_text("x = 1\n")
    monkeypatch.setattr(sys, "prefix", str(prefix))
    first = book_build.python_environment()
    assert any(d.startswith("torch==") for d in first["distributions"]) and first["python"] == sys.version
    (prefix / "lib" / "torch" / "__pycache__" / "ops.cpython-311.pyc").write_bytes(b"code")
    assert book_build.python_environment() == first
    (prefix / "lib" / "torch" / "ops.py").write_text("x = 2\n")
    os.utime(prefix / "lib" / "torch" / "ops.py", ns=(1, 1))
    assert book_build.python_environment()["prefix_files"] != first["prefix_files"]


def steps(*codes):
    "Build steps standing in for tools/book_execute.py and jupyter-book: Python one-liners."
    return [[sys.executable, "-c", code] for code in codes]


WRITE_SITE = ("from pathlib import Path; Path('_build/html').mkdir(parents=True, exist_ok=True); "
              "Path('_build/html/index.html').write_text('<html>book</html>'); print('built the site')")
FAIL = "import sys; print('a chapter failed'); sys.exit(3)"


def test_a_build_is_stamped_then_reused_only_while_nothing_changed(repo):
    lines = []
    assert book_build.build(repo, ["-W"], commands=steps("print('executed 2 of 2 chapters')", WRITE_SITE),
                            out=lines.append) == 0
    assert lines[0] == "book: building" and "book: stamped" in lines[-1]
    assert (repo / book_build.LOG).read_text() == "executed 2 of 2 chapters\nbuilt the site\n"
    assert book_build.reusable(repo, ["-W"])[0]

    # the same inputs: kept (the failing step shows that nothing ran)
    lines.clear()
    assert book_build.build(repo, ["-W"], reuse=True, commands=steps(FAIL), out=lines.append) == 0
    assert len(lines) == 1 and lines[0].startswith("book: reused the existing build"), lines
    # `make book` (no reuse) always builds
    assert book_build.build(repo, ["-W"], commands=steps(FAIL), out=lines.append) == 3
    assert not (repo / book_build.STAMP).exists(), "a failed build left a stamp"
    assert not (repo / "_build" / "html").exists(), "the earlier pages were not removed"
    assert book_build.build(repo, ["-W"], reuse=True, commands=steps(WRITE_SITE), out=lines.append) == 0
    assert "book: building (no stamp" in lines[-3]

    # a changed chapter: rebuilt
    (repo / "chapters" / "01_attention.ipynb").write_text("{'changed': 1}")
    lines.clear()
    ok, why = book_build.reusable(repo, ["-W"])
    assert not ok and "chapters/01_attention.ipynb changed" in why
    assert book_build.build(repo, ["-W"], reuse=True, commands=steps(WRITE_SITE), out=lines.append) == 0
    assert lines[0].startswith("book: building (its inputs changed since: files: chapters/01_attention.ipynb")
    assert book_build.reusable(repo, ["-W"])[0]
    assert not book_build.reusable(repo, ["-W", "-n"])[0]                      # other flags

    # the pages, the cache or the log touched after the build: rebuilt
    for touched in ("_build/html/index.html", book_build.LOG, "_build/.jupyter_cache/global.db"):
        book_build.build(repo, ["-W"], commands=steps(WRITE_SITE), out=lines.append)
        assert book_build.reusable(repo, ["-W"])[0]
        (repo / touched).parent.mkdir(parents=True, exist_ok=True)
        (repo / touched).write_text("edited by hand")
        ok, why = book_build.reusable(repo, ["-W"])
        assert not ok and "changed since" in why, touched


def test_inputs_that_change_during_the_build_leave_no_stamp(repo):
    edit = "from pathlib import Path; Path('chapters/01_attention.ipynb').write_text('edited meanwhile')"
    lines = []
    assert book_build.build(repo, [], commands=steps(WRITE_SITE, edit), out=lines.append) == 0
    assert not (repo / book_build.STAMP).exists()
    assert "inputs changed while it was built (files: chapters/01_attention.ipynb changed)" in lines[-1]
    assert not book_build.reusable(repo, [])[0]


def test_make_site_runs_the_build_script_and_the_tests_ask_to_reuse():
    makefile = (ROOT / "Makefile").read_text()
    assert "$(BIN)/python tools/book_build.py $(if $(filter 1,$(SITE_REUSE)),--reuse) $(BOOK_FLAGS)" in makefile
    assert "SITE_REUSE=1" in (ROOT / "tests" / "test_book.py").read_text()
    execute, jb = book_build.default_commands(["-W"])
    assert execute[-1].endswith("tools/book_execute.py") and jb[1:] == ["build", ".", "-W"]
