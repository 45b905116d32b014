"""The book is built again only where something changed (tools/book_build.py, tools/book_execute.py).

On a scratch book of two small notebooks, each reading one module of a fake `transformer`
package, and the first one results/ too:
(a) a second build executes nothing;
(b) a notebook whose cells changed is executed again, alone;
(c) a changed input (a module a notebook reads, a data folder it names, an environment variable
    it names) executes again the notebooks that read it, and only those, and the cache then
    holds the new outputs;
(d) what lies outside the repository and its environment (~/.ipython, which the first kernel
    creates, Jupyter's and matplotlib's settings) and what only sets speed (OMP_NUM_THREADS,
    BOOK_JOBS) executes nothing.
Then which modules a chapter reads (imports, dotted names, console scripts, paths, relative
imports); the build's own rule for reading every page again (after a failed build, or changed
settings); and, with jupyter-book itself (e2e), that Sphinx reads again only the page whose
chapter ran again.
"""
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_build  # noqa: E402
import book_execute  # noqa: E402


def notebook(*sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A chapter")]
                                  + [nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


ONE = ('print(open("../transformer/a.py").read().strip())',
       'print(open("../results/score.json").read().strip())')
TWO = ('import os\nprint(open("../transformer/b.py").read().strip(), os.environ.get("SCRATCH_SETTING"))',)


@pytest.fixture
def book(tmp_path, monkeypatch):
    "A scratch book: ch/one reads transformer/a.py and results/, ch/two transformer/b.py and $SCRATCH_SETTING."
    root = tmp_path / "book"
    files = {
        "_config.yml": "title: scratch\nonly_build_toc_files: true\nexclude_patterns: [_build, transformer]\n"
                       "execute:\n  execute_notebooks: cache\n  allow_errors: false\n  timeout: 60\n"
                       f"sphinx:\n  local_extensions:\n    book_execute: {ROOT / 'tools'}/\n",
        "_toc.yml": "format: jb-book\nroot: intro\nchapters:\n  - file: ch/one\n  - file: ch/two\n",
        "intro.md": "# Intro\n",
        "pyproject.toml": '[project]\nname = "scratch"\n',
        "transformer/__init__.py": "", "transformer/a.py": "A = 1\n", "transformer/b.py": "B = 1\n",
        "results/score.json": '{"bleu": 30}\n',
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "ch").mkdir()
    nbformat.write(notebook(*ONE), root / "ch" / "one.ipynb")
    nbformat.write(notebook(*TWO), root / "ch" / "two.ipynb")
    home = tmp_path / "home"                         # a new user: no ~/.ipython yet
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("IPYTHONDIR", "JUPYTER_CONFIG_DIR", "MPLCONFIGDIR", "XDG_CONFIG_HOME", "SCRATCH_SETTING"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv(book_execute.SITE_ENV, "0")   # execute() sets it; undone after the test
    return root


def run(root):
    "Execute what is out of date: (exit status, {chapter: why it ran})."
    lines = []
    rc = book_execute.execute(root, nproc=2, out=lines.append)
    ran = dict(l.split(": executing ", 1) for l in lines if ": executing (" in l)
    return rc, {doc: why.strip("()") for doc, why in ran.items()}


def records(root):
    "{chapter: (record id, created)} of the cache."
    from jupyter_cache import get_cache
    cache = get_cache(str(book_execute.cache_path(root)))
    return {Path(r.uri).stem: (r.pk, r.created) for r in cache.list_cache_records()}


def outputs(root, doc):
    "The text a chapter printed, as myst-nb takes it from the cache."
    from jupyter_cache import get_cache
    cache = get_cache(str(book_execute.cache_path(root)))
    _, nb = cache.merge_match_into_notebook(nbformat.read(root / f"{doc}.ipynb", 4))
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_nothing_runs_twice_and_a_changed_notebook_runs_alone(book, monkeypatch):
    assert run(book) == (0, {"ch/one": "not in the cache", "ch/two": "not in the cache"})
    first = records(book)
    assert sorted(first) == ["one", "two"]
    assert (Path(os.environ["HOME"]) / ".ipython").is_dir()         # the first kernel made it

    # (a) a second build executes nothing
    assert run(book) == (0, {})
    assert records(book) == first

    # (d) settings outside the repository and its environment, and speed: nothing runs
    home = Path(os.environ["HOME"])
    for path in (home / ".ipython" / "profile_default" / "startup" / "00-mine.py",
                 home / ".jupyter" / "jupyter_nbconvert_config.json", home / ".config" / "matplotlib" / "matplotlibrc"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("print('my own settings')\n" if path.suffix == ".py" else "{}\n")
    for name, value in [("OMP_NUM_THREADS", "3"), ("BOOK_JOBS", "1"), ("PYTEST_CURRENT_TEST", "x"),
                        ("MAKEFLAGS", "-j2"), ("TERM", "dumb")]:
        monkeypatch.setenv(name, value)
    assert run(book) == (0, {})
    assert records(book) == first

    # (b) a notebook whose cells changed runs alone; its earlier record is dropped
    nbformat.write(notebook(*TWO, "print('a new cell')"), book / "ch" / "two.ipynb")
    assert run(book) == (0, {"ch/two": "not in the cache"})
    now = records(book)
    assert now["one"] == first["one"] and now["two"] != first["two"] and len(now) == 2
    assert outputs(book, "ch/two").endswith("a new cell\n")


def test_a_changed_input_runs_the_chapters_that_read_it(book, monkeypatch):
    assert run(book)[0] == 0
    assert outputs(book, "ch/one") == 'A = 1\n{"bleu": 30}\n'

    # (c) a module one chapter reads: that chapter runs again, and the cache holds its new outputs
    (book / "transformer" / "a.py").write_text("A = 2\n")
    assert run(book) == (0, {"ch/one": "changed: transformer/a.py changed"})
    assert outputs(book, "ch/one") == 'A = 2\n{"bleu": 30}\n'
    # a folder one names, a variable the other names, the project's settings (both)
    stale = lambda: {doc: why for doc, (*_, why) in book_execute.plan(book).items() if why}
    (book / "results" / "score.json").write_text('{"bleu": 31}\n')
    assert stale() == {"ch/one": "changed: results/ changed"}
    monkeypatch.setenv("SCRATCH_SETTING", "on")
    assert stale() == {"ch/one": "changed: results/ changed", "ch/two": "changed: environment SCRATCH_SETTING added"}
    (book / "pyproject.toml").write_text('[project]\nname = "scratch"\nversion = "2"\n')
    assert stale() == {"ch/one": "changed: results/ changed, pyproject.toml changed",
                       "ch/two": "changed: environment SCRATCH_SETTING added, pyproject.toml changed"}
    assert run(book)[1].keys() == {"ch/one", "ch/two"}
    assert outputs(book, "ch/one") == 'A = 2\n{"bleu": 31}\n' and outputs(book, "ch/two") == "B = 1 on\n"
    assert run(book) == (0, {})


def test_the_modules_a_chapter_reads(tmp_path):
    "Imports, dotted names, console scripts, paths and relative imports; a package's __init__ comes with it."
    root = tmp_path
    files = {
        "pyproject.toml": '[project.scripts]\ntransformer-go = "transformer.cli:main"\n',
        "_config.yml": "execute:\n  timeout: 60\n",
        "transformer/__init__.py": "from transformer.attention import attend\n",
        "transformer/attention.py": "import math\n",
        "transformer/loop.py": "from .data import load\nfrom . import machine\n",
        "transformer/data.py": "MULTI30K = 'somewhere'\n",
        "transformer/machine.py": "import os\nTHREADS = os.environ.get('BOOK_THREADS')\n",
        "transformer/cli.py": "def main(out='runs/tiny'): pass\n",
        "transformer/onnx.py": "import importlib\ndef need(m): return importlib.import_module(m)\n",
        "transformer/_modidx.py": "d = {}\n",
        "transformer_course/__init__.py": "",
        "transformer_course/figures/__init__.py": "from .matrices import heat\n",
        "transformer_course/figures/matrices.py": "def heat(): pass\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    sources = book_execute.Sources(root, env={"BOOK_THREADS": "4", "OMP_NUM_THREADS": "2"})
    base = {"transformer", "transformer.attention"}
    for code, expected in [
        ("import torch\nx = 1", set()),
        ("from transformer.loop import train", base | {"transformer.loop", "transformer.data", "transformer.machine"}),
        ("import transformer", base),
        ("from transformer import cli, attend", base | {"transformer.cli"}),
        ("from transformer_course.figures import heat",
         {"transformer_course", "transformer_course.figures", "transformer_course.figures.matrices"}),
        ('subprocess.run([sys.executable, "-c", "from transformer.cli import main; main()"])', base | {"transformer.cli"}),
        ('subprocess.run([sys.executable, "-m", "transformer.cli"])', base | {"transformer.cli"}),
        ("!transformer-go --help", base | {"transformer.cli"}),
        ('print(open("../transformer/cli.py").read())', base | {"transformer.cli"}),
        ("from transformer.onnx import need",                 # a module computed at run time: all but nbdev's index
         set(sources.modules) - {"transformer._modidx"} - {m for m in sources.modules if m.startswith("transformer_course")}),
    ]:
        assert sources.closure(code) == expected, code
    # what a chapter's key holds: the modules by content, the folders and variables they name
    nb = root / "ch.ipynb"
    nbformat.write(notebook("from transformer.loop import train\nprint(open('../results/x.json'))"), nb)
    key = book_execute.inputs(nb, sources)
    assert set(key["modules"]) == {"transformer/__init__.py", "transformer/attention.py", "transformer/loop.py",
                                   "transformer/data.py", "transformer/machine.py"}
    assert set(key["data"]) == {"results/", "multi30k"}             # data.py names Multi30k
    assert key["data"]["multi30k"] == "the package's download cache (decided by its data module)"
    assert key["environment"] == {"BOOK_THREADS": "4"}
    assert key["python"] == sys.version.split()[0] and key["pyproject.toml"]
    data = tmp_path / "multi30k"
    data.mkdir()
    (data / "train.de.gz").write_bytes(b"ein Hund")
    given = book_execute.inputs(nb, book_execute.Sources(root, env={"MULTI30K_DIR": str(data)}))
    (data / "train.de.gz").write_bytes(b"zwei Hunde")
    assert given["data"]["multi30k"] != book_execute.inputs(nb, book_execute.Sources(root, env={"MULTI30K_DIR": str(data)}))["data"]["multi30k"]
    # runs/, where trainings write: only when the chapter itself reads it (cli.py's default is not enough)
    (root / "runs" / "cpu").mkdir(parents=True)
    (root / "runs" / "cpu" / "metrics.jsonl").write_text("{}\n")
    for code, reads_runs in [("import transformer.cli", False), ('run = Path("../runs") / "cpu"', True),
                             ("print(open('../runs/cpu/metrics.jsonl').read())", True)]:
        nbformat.write(notebook(code), nb)
        assert ("runs/" in book_execute.inputs(nb, book_execute.Sources(root))["data"]) == reads_runs, code


# ------------------------------------------------------------------ tools/book_build.py
def steps(*codes):
    "Build steps standing in for tools/book_execute.py and jupyter-book: Python one-liners."
    return [[sys.executable, "-c", code] for code in codes]


SITE = ("from pathlib import Path; Path('_build/.doctrees').mkdir(parents=True, exist_ok=True); "
        "Path('_build/.doctrees/environment.pickle').write_text('env'); "
        "print('executed 0 of the 0 chapters to run'); print('updating environment: 0 added, 1 changed, 0 removed')")
FAIL = "import sys; print('a page warned'); sys.exit(3)"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    (root / "tools" / "book_ext.py").write_text("def setup(app): pass\n")
    (root / "_config.yml").write_text("execute:\n  timeout: 60\n  book_execution_seconds:\n    ch/one: 5\n"
                                      "sphinx:\n  local_extensions:\n    book_ext: tools/\n")
    (root / "_toc.yml").write_text("root: intro\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return root


def test_every_page_is_read_again_after_a_failed_build_or_changed_settings(repo, tmp_path):
    lines = []

    def build(flags=("-W",), commands=steps(SITE)):
        lines.clear()
        rc = book_build.build(repo, list(flags), commands=commands, out=lines.append)
        return rc, lines[0]

    assert build() == (0, "book: building, every page read again (no earlier build)")
    assert lines[-1] == "book: built; executed 0 of the 0 chapters to run; Sphinx: 0 added, 1 changed, 0 removed pages"
    assert (repo / book_build.LOG).read_text().startswith("executed 0 of the 0")
    assert build() == (0, "book: building what changed since the last build")
    # a failed build: the next one reads every page again (Sphinx would not repeat its warnings)
    assert build(commands=steps(FAIL))[0] == 3 and lines[-1].startswith("book: failed (exit status 3)")
    assert not (repo / book_build.OK).exists()
    (repo / "_build" / "html").mkdir(parents=True, exist_ok=True)
    assert build()[1] == "book: building, every page read again (the last build did not finish successfully)"
    assert not (repo / "_build" / "html").exists(), "the earlier pages were not removed"
    # what Sphinx does not see: the book's extensions, the table of contents, the flags, the settings
    for change, why in [
        (lambda: (repo / "tools" / "book_ext.py").write_text("def setup(app): return {}\n"), "tools/book_ext.py changed"),
        (lambda: (repo / "_toc.yml").write_text("root: start\n"), "toc changed"),
        (lambda: (repo / "_config.yml").write_text((repo / "_config.yml").read_text().replace("60", "90")), "config changed"),
    ]:
        change()
        assert build()[1] == f"book: building, every page read again (settings changed since the last build: {why})"
        assert build()[1] == "book: building what changed since the last build"
    assert build(flags=["-W", "-n"])[1].endswith("(settings changed since the last build: flags changed)")
    # not: the chapters' measured seconds, the user's own settings
    (repo / "_config.yml").write_text((repo / "_config.yml").read_text().replace("ch/one: 5", "ch/one: 50"))
    startup = tmp_path / "home" / ".ipython" / "profile_default" / "startup" / "README"
    startup.parent.mkdir(parents=True)
    startup.write_text("new\n")
    assert build(flags=["-W", "-n"])[1] == "book: building what changed since the last build"


def test_make_site_runs_the_build_script_and_the_extension_is_loaded():
    import yaml
    makefile = (ROOT / "Makefile").read_text()
    assert "\t$(BIN)/python tools/book_build.py $(BOOK_FLAGS)\n" in makefile
    assert "SITE_REUSE" not in makefile and "SITE_REUSE" not in (ROOT / "tests" / "test_book.py").read_text()
    execute, jb = book_build.default_commands(["-W"])
    assert execute[1:] == [str(ROOT / "tools" / "book_execute.py"), str(ROOT)] and jb[1:] == ["build", ".", "-W"]
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"]["book_execute"] == "tools/"


@pytest.mark.e2e
def test_sphinx_reads_again_only_the_page_whose_chapter_ran(book):
    "jupyter-book on the scratch book: the second build does nothing; a changed module, one page."
    lines = []
    flags = ["-W", "-n", "--keep-going"]
    assert book_build.build(book, flags, out=lines.append) == 0, "\n".join(lines[-30:])
    assert lines[-1].startswith("book: built; executed 2 of the 2 chapters to run") and "3 added" in lines[-1]
    lines.clear()
    assert book_build.build(book, flags, out=lines.append) == 0
    assert lines[0] == "book: building what changed since the last build"
    assert lines[-1].startswith("book: built; executed 0 of the 0 chapters to run")
    assert lines[-1].endswith("(2 of the book's 2 taken from the cache); Sphinx: 0 added, 0 changed, 0 removed pages")
    (book / "transformer" / "a.py").write_text("A = 2\n")
    lines.clear()
    assert book_build.build(book, flags, out=lines.append) == 0
    assert "ch/one: executing (changed: transformer/a.py changed)" in lines
    assert lines[-1].startswith("book: built; executed 1 of the 1") and "0 added, 1 changed, 0 removed" in lines[-1]
    assert "A = 2" in (book / "_build" / "html" / "ch" / "one.html").read_text()
    key = json.loads(book_execute.key_file(book, "ch/one").read_text())
    assert key["inputs"]["modules"] == {"transformer/__init__.py": book_execute.sha256(book / "transformer" / "__init__.py"),
                                        "transformer/a.py": book_execute.sha256(book / "transformer" / "a.py")}
