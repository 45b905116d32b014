"""The book: built once per test session with `make site`, as `make book` builds it, then
checked as a reader would see it.

The session fixture runs `make site` (the book build of `make book` without re-exporting the
package, so that tests/test_export.py still checks the committed package). tools/book/build.py
executes only the chapters whose outputs its jupyter-cache (kept in _build/ between builds) does
not hold for their code cells (all of them when the course's code, models/, results/ or the
environment changed), and Sphinx reads again only the pages that changed: right after `make book` nothing is executed and nothing read again; a clean checkout
(CI) executes every chapter. The build fails on any warning or failing cell. What it did is
printed in pytest's terminal summary ("the book") and in _build/book.tested.txt.
The checks themselves live in tools/book/check_site.py (also usable by hand:
`python -m tools.book.check_site`). The browser tests need Chromium and its chromedriver (Debian:
`apt-get install chromium chromium-driver`; Selenium drives them); without them they are
skipped, except in CI (CI=true), where they fail.

Each chapter is executed at most once per test run, by this build; the per-chapter tests below
read the executed notebooks from the build's jupyter-cache instead of running the chapters
again. (`make nbtest` runs them under nbdev's own runner, for chapter authors.)

BOOK_REUSE=1 checks the existing _build/html without building (for quick iteration only).

These tests are the slowest of the suite: they carry the `e2e` mark (pytest -m "not e2e" skips them).
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import BOOK_DECISION, TRANSLATOR_TIMES, skip_or_fail

from tools.book import check_site, figure_check, translator_check

ROOT = Path(__file__).resolve().parents[1]

# Under pytest-xdist, `make test` sends each test file to one worker (--dist loadfile), so the
# session fixture below builds the book once.
HTML = ROOT / "_build" / "html"
LOG = ROOT / "_build" / "book.log"
CACHE = ROOT / "_build" / ".jupyter_cache"
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="session")
def build():
    """Build the book once, as `make book` does (nothing to do right after it): (exit status, the
    build's log). What the build did is printed and written to BOOK_DECISION (the terminal summary)."""
    if os.environ.get("BOOK_REUSE") == "1" and HTML.is_dir():
        return 0, "(BOOK_REUSE=1: existing build checked)"
    LOG.parent.mkdir(exist_ok=True)
    bindir = Path(sys.executable).parent  # the environment running the tests builds the book
    # the environment as it is: chapter 10's live run lasts $BOOK_TRAIN_MINUTES, 1 by default,
    # as in `make book` (a chapter is executed again when a variable it reads differs)
    r = subprocess.run(
        ["make", "--no-print-directory", "site", f"BIN={bindir}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    said = [l for l in r.stdout.splitlines() if l.startswith("book: ")]
    decision = said[-1] if said else f"book: `make site` failed before tools/book/build.py ran (exit {r.returncode})"
    if r.returncode:
        decision += f"; the build failed (exit status {r.returncode}), see {LOG}"
    print(*said, sep="\n")
    BOOK_DECISION.write_text(decision + "\n")
    # the log of the build (make's own output when it failed before the build wrote one)
    log = LOG.read_text() if r.returncode == 0 and LOG.is_file() else r.stdout
    return r.returncode, log


def test_the_build_checked_is_named(build):
    "The session says what its build did: how many chapters it executed, how many pages Sphinx read."
    if os.environ.get("BOOK_REUSE") == "1":
        pytest.skip("BOOK_REUSE=1: the existing build is checked, whatever it was built from")
    said = BOOK_DECISION.read_text()
    assert said.startswith("book: built; executed "), said
    print(said)


@pytest.fixture(scope="session")
def html(build):
    if not (HTML / "index.html").is_file():
        pytest.fail(f"the book build wrote no site; see {LOG}")
    return HTML


@pytest.fixture(scope="session")
def docs():
    return check_site.toc_docs(ROOT)


def test_book_builds(build):
    "`jupyter-book build -W -n --keep-going` succeeds: no warning, no failing cell."
    rc, log = build
    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
    problems = [l for l in plain.splitlines() if re.search(r": (WARNING|ERROR|CRITICAL):", l)]
    assert rc == 0, f"the book build failed (full log: {LOG}):\n" + "\n".join(
        problems[-30:] or plain.splitlines()[-30:]
    )


def test_the_build_read_every_chapter_from_the_cache(build, docs):
    """Every chapter has its outputs in the jupyter-cache for its code cells as they are now
    (jupyter-cache's own lookup, myst-nb's too: the build has nothing left to execute), and
    jupyter-book executed none itself (myst-nb took every page it read from the cache)."""
    import nbformat
    from jupyter_cache import get_cache

    rc, log = build
    if os.environ.get("BOOK_REUSE") == "1":
        pytest.skip("BOOK_REUSE=1: no build log")
    assert rc == 0
    cache, missing = get_cache(str(CACHE)), []
    for d in docs:
        if (ROOT / f"{d}.ipynb").is_file():
            try:
                cache.match_cache_notebook(nbformat.read(ROOT / f"{d}.ipynb", 4))
            except KeyError:
                missing.append(d)
    assert missing == [], "chapters without outputs in the cache"
    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
    assert "Executing notebook" not in plain, "myst-nb executed a chapter the cache did not have"


def test_toc_chapters_are_on_the_site(html, docs):
    assert (ROOT / "chapters").joinpath("index.ipynb").exists()
    assert check_site.check_toc_pages(html, docs) == []


def book_files():
    "Every page of chapters/ and its sub-folders (practice/): notebooks and Markdown files, as toc names."
    return {
        f"chapters/{p.relative_to(ROOT / 'chapters').with_suffix('').as_posix()}"
        for suffix in ("*.ipynb", "*.md")
        for p in (ROOT / "chapters").rglob(suffix)
        if ".ipynb_checkpoints" not in p.parts
    }


def test_every_chapter_is_in_the_toc(docs):
    """A page that the toc forgets would silently be left out of the book: every notebook and Markdown
    page of chapters/, the practice pages that the toc lists by a glob included, and the toc's parts."""
    assert sorted(book_files() - set(docs)) == []
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    captions = [part.get("caption") for part in toc.get("parts", [])]
    assert captions[:2] == ["Part I. The Transformer", "Part II. Engineering the translator"], captions
    assert "Practice" in captions


def test_only_toc_pages_no_solutions(html, docs):
    assert check_site.check_no_extra_pages(html, docs) == []


def test_no_error_in_executed_cells(html, docs):
    assert check_site.check_no_cell_errors(html, docs) == []


def test_every_cell_was_executed(html, docs):
    assert check_site.check_executed(html, docs) == []


@pytest.mark.parametrize("nb", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_ran(html, nb):
    "Every code cell of the chapter ran in the book build, and none raised."
    executed = check_site.executed_notebook(CACHE, nb)
    assert executed is not None, f"{nb.name}: no executed notebook in {CACHE} (see {LOG})"
    cells = [c for c in executed.cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    not_run = [c.get("id", i) for i, c in enumerate(cells) if c.get("execution_count") is None]
    errors = [
        (c.get("id", i), o.get("ename"), o.get("evalue"))
        for i, c in enumerate(cells)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, f"{nb.name}: cells raised: {errors[:3]}"
    assert not not_run, f"{nb.name}: {len(not_run)} code cells did not run, first {not_run[0]}"


def test_site_is_self_contained(html, docs):
    "Nothing from other hosts; MathJax is served by the site itself."
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert check_site.check_offline(html, docs) == []


def test_answers_are_on_the_site_and_hidden(html, docs):
    "Each chapter's questions have their answers on the page, folded away until the reader opens them."
    pages = [d for d in docs if check_site._soup(check_site.page(html, d)).find("section", id="questions")]
    assert len(pages) >= 10, pages
    assert check_site.check_answers_hidden(html, docs) == []


def test_every_module_docs_address_is_on_the_site(html, docs):
    "help(transformer.X) ends with a Docs: address; the built site has that file (tools/book/book_docs.py)."
    assert check_site.check_module_docs(html, docs) == []


def test_every_symbol_link_of_nbdev_leads_to_its_cell(html, docs):
    """_modidx.py's `<name>.html#<anchor>` (show_doc's links): the page is at the site's root, and
    in Chromium it opens the chapter at the cell with the id `symbol-<anchor>` (book_docs.py)."""
    assert check_site.check_symbol_links(html, docs) == []
    need_browser()
    from selenium.webdriver.support.ui import WebDriverWait

    from tools.book.browser import chromium, serve

    with serve(html) as base, chromium() as session:
        session.get(base + "checkpoints.html#checkpoint.load")
        WebDriverWait(session, 30).until(lambda s: "/chapters/" in s.current_url)
        assert session.current_url == base + "chapters/14_checkpoints.html#symbol-checkpoint.load"
        cell = session.find_element(  # the cell itself, or a span inside it holding a second id
            "xpath", "//*[@id='symbol-checkpoint.load']/ancestor-or-self::div[contains(@class, 'cell')][1]"
        )
        assert "class Checkpoint" in cell.text


def test_the_answer_check_notices_a_missing_or_open_answer(tmp_path):
    "check_answers_hidden itself: a page whose answers are short, or shown, is reported."
    pages = iter(range(100))  # a new file per call: pages are parsed once and cached

    def site(answers, cell='<div class="cell tag_hide-cell"><details><summary>s</summary></details></div>'):
        name = f"p{next(pages)}"
        (tmp_path / f"{name}.html").write_text(
            '<main><section id="questions"><h2>Questions</h2><ol><li>a</li><li>b</li></ol></section>'
            f'<section id="answers"><h2>Answers</h2>{answers}{cell}</section></main>'
        )
        return check_site.check_answers_hidden(tmp_path, [name])

    drop = '<div class="dropdown admonition"><p class="admonition-title">Answer {}</p><p>text</p></div>'
    assert site(drop.format(1) + drop.format(2)) == []
    assert "questions but dropdown answers" in site(drop.format(1))[0]
    assert "questions but dropdown answers" in site(drop.format(1) + drop.format(2).replace("dropdown ", ""))[0]
    assert (
        "shown, not folded away"
        in site(drop.format(1) + drop.format(2), cell='<div class="cell"><pre>x</pre></div>')[0]
    )


# The chapter that links each exercise, where the exercise's number is not its chapter's: the capstone
# (exercise 9) closes chapter 7, and the sub-words exercise (10) goes with section 9.1.
EXERCISE_CHAPTERS = {"capstone": "07_training", "09_1_subwords": "09_subwords"}


def exercise_chapter(name):
    "The chapter (its file name in chapters/, without .ipynb) that links exercise `name`, e.g. '01_attention.ipynb'."
    stem = name.removesuffix(".ipynb")
    return EXERCISE_CHAPTERS.get(stem, stem)


def chapter_markdown(stem):
    nb = ROOT / "chapters" / f"{stem}.ipynb"
    return "\n".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "markdown")


def test_every_exercise_is_linked_from_its_chapter():
    """Chapters 1 to 8 link their exercise notebook, chapter 7 the capstone too, section 9.1 the sub-words
    exercise (a relative link JupyterLab opens)."""
    exercises = sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb"))
    assert len(exercises) >= 10
    for name in exercises:
        stem = exercise_chapter(name)
        assert f"](../exercises/{name})" in chapter_markdown(stem), f"chapters/{stem} does not link exercises/{name}"


def test_exercise_links_and_launch_buttons_on_the_site(html, docs):
    "On the site an exercise link goes to the file in the repository; each chapter has Colab, Binder and download."
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"].rstrip("/")
    for name in sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb")):
        doc = f"chapters/{exercise_chapter(name)}"
        assert doc in docs, f"{doc} is not in the book's toc"
        hrefs = {a.get("href") for a in check_site._soup(check_site.page(html, doc)).find_all("a")}
        assert f"{repo}/blob/main/exercises/{name}" in hrefs, f"{doc}: no link to exercises/{name} on the site"
    for doc in [d for d in docs if d.startswith("chapters/") and (ROOT / f"{d}.ipynb").is_file()]:
        page = str(check_site._soup(check_site.page(html, doc)))
        for needle in ("colab.research.google.com/github/", "mybinder.org/v2/gh/", ".ipynb"):
            assert needle in page, f"{doc}: no {needle} link (launch and download buttons)"


def need_browser():
    "Skip (fail in CI) when Chromium, chromedriver or Selenium is missing."
    missing = check_site.missing_browser()
    if missing:
        skip_or_fail(f"{missing}: .ci/run installs chromium and chromium-driver with apt-get")


def test_pages_in_headless_chromium(html, docs):
    "Every toc page opens in Chromium and MathJax typesets all its math."
    need_browser()
    assert check_site.check_in_browser(html, docs) == []


FIGURE_CHAPTERS = [
    "00_why_attention",
    "01_attention",
    "02_multi_head",
    "03_embeddings",
    "04_encoder",
    "06_model",
    "08_generation",
    "09_subwords",
    "10_translation",
]
MIN_FIGURES = 14  # interactive figures across the book (issue 22 asked for at least 12)


def test_interactive_figures_in_headless_chromium(html):
    """Each chapter's interactive figure is on its page; in Chromium with the network off, every
    button and slider of every figure changes what the figure shows, and no page asks for
    anything outside the site."""
    pages = figure_check.figure_pages(html)
    missing = [c for c in FIGURE_CHAPTERS if f"chapters/{c}.html" not in pages]
    assert not missing, f"chapters without an interactive figure: {missing}"
    count = sum((html / p).read_text(encoding="utf-8").count('<div class="tf-figure"') for p in pages)
    assert count >= MIN_FIGURES, f"{count} interactive figures in the book, fewer than {MIN_FIGURES}"
    need_browser()
    assert figure_check.check_figures(html, pages) == []


SITE_TRANSLATOR_MB = 30  # what the in-page translator may add to the site


def test_translator_box_in_headless_chromium(html, data_dir):
    """Chapter 10's translator box, in Chromium with the network off: 20 test sentences typed in
    give exactly the greedy translations Python computes with the same ONNX files
    (OnnxTranslator); an empty box, an emoji and a text longer than the model's maximum get a
    message; opened as a file, the page says how to serve it; nothing outside the site is
    requested. Its load and translation times and its size are printed (the summary repeats
    them); only the size has a bound."""
    assert (html / translator_check.STATIC / "translator.js").is_file()
    need_browser()
    lines = []
    problems, report = translator_check.check(html, 20, data_dir, out=lines.append)
    TRANSLATOR_TIMES.write_text("\n".join(lines) + "\n")
    print(*lines, sep="\n")
    assert problems == []
    assert report["site_bytes"] < SITE_TRANSLATOR_MB * 1e6
