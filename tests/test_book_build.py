"""The book's build (tools/book/build.py): jupyter-cache executes the chapters, coarsely invalidated.

On a scratch book of two small notebooks in chapters/, the first reading a module of a fake
`transformer` package:
(a) a second build executes nothing;
(b) a chapter whose code changed is executed again, alone (jupyter-cache's hash of its cells);
(c) a change under transformer/ or results/, or to pyproject.toml, executes every chapter again;
(d) a failing chapter fails the build, with its traceback, and is executed again next time;
and, with jupyter-book itself (e2e), that a second build executes nothing and reads no page, and
that a changed module reaches the page although its notebook did not change.
Then the build's own rules: what `make site` runs, the extensions' folder, the size of the build
code, no file of tools/ over 300 lines, and no reading of jupyter-cache's database.
"""

import re
from pathlib import Path

import nbformat
import pytest
import yaml

from tools.book import build

ROOT = Path(__file__).resolve().parents[1]


def notebook(*sources):
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# A chapter")] + [nbformat.v4.new_code_cell(s) for s in sources]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


ONE = ('print(open("../transformer/a.py").read().strip())',)
TWO = ('print("two")',)


@pytest.fixture
def book(tmp_path, monkeypatch):
    "A scratch book: chapters/one reads transformer/a.py, chapters/two reads nothing."
    root = tmp_path / "book"
    files = {
        "_config.yml": "title: scratch\nonly_build_toc_files: true\n"
        "exclude_patterns: [_build, transformer, results]\n"
        "execute:\n  execute_notebooks: cache\n  allow_errors: false\n  timeout: 300\n",
        "_toc.yml": "format: jb-book\nroot: intro\nchapters:\n  - file: chapters/one\n  - file: chapters/two\n",
        "intro.md": "# Intro\n",
        "chapters/notes.md": "# Notes\n",
        "pyproject.toml": '[project]\nname = "scratch"\n',
        "transformer/__init__.py": "",
        "transformer/a.py": "A = 1\n",
        "results/score.json": '{"bleu": 30}\n',
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    nbformat.write(notebook(*ONE), root / "chapters" / "one.ipynb")
    nbformat.write(notebook(*TWO), root / "chapters" / "two.ipynb")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("TRANSFORMER_FIGURES_SITE", "0")  # the build sets it; undone after the test
    return root


def execute(root):
    "Steps 1 and 2 of a build: (exit status, the chapters executed, everything printed)."
    lines = []
    build.invalidate(root, lines.append)
    rc, said = build.execute(root, lines.append)
    lines.append(said)
    ran = next((l.split("at a time: ", 1)[1].split(", ") for l in lines if l.startswith("book: executing ")), [])
    return rc, sorted(ran), re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(lines))  # no colours


def outputs(root, doc):
    "The text a chapter printed, as myst-nb takes it from the cache."
    from jupyter_cache import get_cache

    cache = get_cache(str(root / build.CACHE))
    _, nb = cache.merge_match_into_notebook(nbformat.read(root / f"{doc}.ipynb", 4))
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_a_chapter_the_parallel_workers_did_not_cache_runs_again_alone(book, monkeypatch):
    "jupyter-cache's parallel workers can race while caching (a record removed twice): such a chapter runs again."
    from jupyter_cache import executors

    real, kinds = executors.load_executor, []

    def load(kind, cache, **kwargs):
        kinds.append(kind)
        executor = real(kind, cache, **kwargs)
        if kind == "local-parallel":  # the first chapter "could not be cached": reported errored, not run
            run = executor.run_and_cache

            def racing(filter_uris, **limits):
                result = run(filter_uris=filter_uris[1:], **limits)
                result.errored.append(filter_uris[0])
                return result

            executor.run_and_cache = racing
        return executor

    monkeypatch.setattr(executors, "load_executor", load)
    rc, ran, said = execute(book)
    assert (rc, ran, kinds) == (0, ["chapters/one.ipynb", "chapters/two.ipynb"], ["local-parallel", "local-serial"])
    assert said.splitlines()[-1].startswith("executed 2 of the 2 chapters in ")
    assert outputs(book, "chapters/one") == "A = 1\n" and outputs(book, "chapters/two") == "two\n"


def test_what_is_executed_again(book):
    both = ["chapters/one.ipynb", "chapters/two.ipynb"]
    assert execute(book)[:2] == (0, both)
    assert outputs(book, "chapters/one") == "A = 1\n"
    # (a) a second build executes nothing
    rc, ran, said = execute(book)
    assert (rc, ran) == (0, []) and said == "executed 0 of the 2 chapters (all taken from the cache)"
    # (b) a chapter whose code changed, alone
    nbformat.write(notebook(*TWO, "print('a new cell')"), book / "chapters" / "two.ipynb")
    assert execute(book)[:2] == (0, ["chapters/two.ipynb"])
    assert outputs(book, "chapters/two") == "two\na new cell\n"
    # (c) the course's code, results/, pyproject.toml: every chapter, with the new outputs
    for path, text in [
        ("transformer/a.py", "A = 2\n"),
        ("results/score.json", '{"bleu": 31}\n'),
        ("pyproject.toml", '[project]\nname = "scratch"\nversion = "2"\n'),
    ]:
        (book / path).write_text(text)
        rc, ran, said = execute(book)
        assert (rc, ran) == (0, both), (path, said[-2000:])
        assert "every chapter is executed again" in said
        assert execute(book)[:2] == (0, [])
    assert outputs(book, "chapters/one") == "A = 2\n"


def test_a_failing_chapter_fails_with_its_traceback(book):
    nbformat.write(notebook("x = 1", "raise ValueError('the cell that fails')"), book / "chapters" / "two.ipynb")
    rc, ran, said = execute(book)
    assert rc == 1 and ran == ["chapters/one.ipynb", "chapters/two.ipynb"]
    assert "chapters/two.ipynb: ERROR" in said and "ValueError: the cell that fails" in said, said
    assert "chapters/one.ipynb: ERROR" not in said and "1 failed" in said
    rc, ran, said = execute(book)  # only the failing chapter runs again
    assert rc == 1 and ran == ["chapters/two.ipynb"]


@pytest.mark.e2e
def test_a_second_build_executes_and_reads_nothing(book):
    "jupyter-book on the scratch book; then a changed module reaches the page of an unchanged notebook."
    lines = []
    flags = ["-W", "-n", "--keep-going"]
    assert build.build(book, flags, out=lines.append) == 0, "\n".join(lines[-30:])
    assert lines[-1].startswith("book: built; executed 2 of the 2 chapters") and "3 added" in lines[-1]
    lines.clear()
    assert build.build(book, flags, out=lines.append) == 0
    assert lines[-1] == (
        "book: built; executed 0 of the 2 chapters (all taken from the cache); Sphinx: 0 added, 0 changed, 0 removed"
    )
    assert "Executing notebook" not in (book / build.LOG).read_text()  # myst-nb executed nothing
    (book / "transformer" / "a.py").write_text("A = 3\n")
    lines.clear()
    assert build.build(book, flags, out=lines.append) == 0
    assert lines[-1].startswith("book: built; executed 2 of the 2 chapters") and "3 added" in lines[-1]
    assert "A = 3" in (book / "_build" / "html" / "chapters" / "one.html").read_text()


def test_the_build_and_the_tools_as_the_repository_uses_them():
    assert "\t$(BIN)/python -m tools.book.build $(BOOK_FLAGS)\n" in (ROOT / "Makefile").read_text()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "cache" and config["execute"]["allow_errors"] is False
    for name, folder in config["sphinx"]["local_extensions"].items():
        assert (ROOT / folder / f"{name}.py").is_file(), name
    # the build code stays small, reads jupyter-cache through its public API only
    code = (ROOT / "tools" / "book" / "build.py").read_text()
    assert len(code.splitlines()) <= 150
    assert not re.search(r"\.db\b|NbCacheRecord|NbProjectRecord|sqlalchemy|sqlite|\._\w", code)
    # tools/ is sorted into packages, run as modules: no file over 300 lines, no sys.path edits
    for path in (ROOT / "tools").rglob("*.py"):
        text = path.read_text()
        assert len(text.splitlines()) <= 300, path
        assert "sys.path" not in text, path
    assert all(
        (folder / "__init__.py").is_file()
        for folder in (ROOT / "tools").iterdir()
        if folder.is_dir() and folder.name != "__pycache__"
    )
