"""Check a built book (_build/html) the way a reader would see it.

    python -m tools.book.check_site [_build/html] [--no-browser]

Static checks on the HTML files:
  - every page listed in _toc.yml is on the site, and no other page is (no exercise,
    solution, test or package file);
  - no executed cell shows an error (traceback output, error output classes);
  - every code cell of every chapter ran (the executed notebooks are in the build's
    jupyter-cache, _build/.jupyter_cache);
  - every module's `Docs:` address is in the site, and every link of nbdev's index of the
    package (`<name>.html#<anchor>`) leads to the cell that defines its symbol
    (tools/book/book_docs.py writes both);
  - no page loads a script, stylesheet or image from another host (the site works
    offline), and the MathJax the pages load is the copy inside the site.
Browser check (headless Chromium driven by Selenium through chromedriver; `--no-browser`
skips it):
  - each page of the toc is opened from a local HTTP server, MathJax's first typesetting is
    waited for, and the DOM is read: every math element must have been typeset (an
    mjx-container inside it) and no TeX delimiter ($$, \\(, \\[, $..\\..$, \\begin{...})
    may be left in the text outside code (the browser: tools/book/browser.py).
Exit status 1 and a list of problems when something is wrong. tests/test_book.py runs
the same checks, one test each.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

from tools.book.book_docs import symbol_links
from tools.book.browser import check_in_browser, find_driver, missing_browser  # noqa: F401
from transformer_course.reading_time import toc_parts

ROOT = Path(__file__).resolve().parents[2]

# Pages Sphinx writes besides the documents of the toc.
SPHINX_PAGES = {"index.html", "search.html", "genindex.html", "py-modindex.html"}


def toc_docs(root: Path = ROOT) -> list[str]:
    "Document names of _toc.yml (root first), without suffix, from the course's one reader of it."
    return [doc for _, docs in toc_parts(root) for doc in docs]


def page(html_dir: Path, doc: str) -> Path:
    return Path(html_dir) / f"{doc}.html"


@functools.cache
def _soup(path: str) -> BeautifulSoup:
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser")


def soup(path: Path) -> BeautifulSoup:
    return _soup(str(Path(path).resolve()))


def _pages(html_dir: Path, docs: list[str]) -> list[tuple[str, Path]]:
    return [(d, page(html_dir, d)) for d in docs if page(html_dir, d).is_file()]


# ---------------------------------------------------------------------- static checks
def check_toc_pages(html_dir: Path, docs: list[str]) -> list[str]:
    "Every page of the toc is there, with a title."
    problems = []
    for d in docs:
        p = page(html_dir, d)
        if not p.is_file():
            problems.append(f"{d}: in _toc.yml but not on the site ({p} missing)")
            continue
        main = soup(p).find("main") or soup(p)
        if not main.find("h1"):
            problems.append(f"{d}: page has no title (h1)")
    if not (Path(html_dir) / "index.html").is_file():
        problems.append("index.html missing")
    return problems


def check_no_extra_pages(html_dir: Path, docs: list[str]) -> list[str]:
    "Only the toc's pages are on the site: nothing from exercises/, solutions/, tests/ ..."
    html_dir = Path(html_dir)
    allowed = {f"{d}.html" for d in docs} | SPHINX_PAGES | {p for p, _, _ in symbol_links(ROOT).values()}
    problems = []
    for p in sorted(html_dir.rglob("*")):
        rel = p.relative_to(html_dir).as_posix()
        top = rel.split("/")[0]
        if p.is_file() and p.suffix == ".html" and top not in {"_static", "_sources", "_images"} and rel not in allowed:
            problems.append(f"{rel}: page not in _toc.yml")
        if re.search(r"(^|/)(exercises|solutions|tests|transformer_course|grader|\.scratch|\.venv)(/|$)", rel):
            problems.append(f"{rel}: must not be on the site")
    return problems


def check_no_cell_errors(html_dir: Path, docs: list[str]) -> list[str]:
    "No cell output shows a traceback or an error."
    problems = []
    for d, p in _pages(html_dir, docs):
        s = soup(p)
        bad = s.select(".output.traceback, .output.error, .traceback, .cell_output .error")
        for el in bad:
            first = el.get_text(" ", strip=True)[:160]
            problems.append(f"{d}: error output in an executed cell: {first!r}")
        for out in s.select(".cell_output"):
            text = out.get_text("\n")
            if "Traceback (most recent call last)" in text:
                problems.append(f"{d}: traceback in a cell output")
    return problems


def executed_notebook(cache_dir: Path, source: Path):
    """The chapter as the build rendered it: `source` with the outputs of its record in the
    jupyter-cache (matched by its code, as myst-nb does), or None when the cache has none.
    (In cache mode, myst-nb 1.x writes _build/jupyter_execute's copy without the outputs.)"""
    import nbformat
    from jupyter_cache import get_cache

    if not (Path(cache_dir) / "global.db").is_file():
        return None
    try:
        return get_cache(str(cache_dir)).merge_match_into_notebook(nbformat.read(source, 4))[1]
    except KeyError:
        return None


def check_executed(html_dir: Path, docs: list[str]) -> list[str]:
    """Every code cell of every notebook page ran: the executed notebooks in the build's
    jupyter-cache (next to html_dir) have an execution count on each code cell (a run that
    stopped at an error leaves the cells after it without one)."""
    problems = []
    cache_dir = Path(html_dir).parent / ".jupyter_cache"
    for d in docs:
        source = ROOT / f"{d}.ipynb"
        if not source.is_file():
            continue
        nb = executed_notebook(cache_dir, source)
        if nb is None:
            problems.append(f"{d}: no executed notebook in {cache_dir} (python -m tools.book.build)")
            continue
        skipped = [
            i
            for i, c in enumerate(nb.cells)
            if c["cell_type"] == "code"
            and "".join(c["source"]).strip()
            and "skip-execution" not in c.get("metadata", {}).get("tags", [])
            and c.get("execution_count") is None
        ]
        if skipped:
            problems.append(f"{d}: {len(skipped)} code cells did not run (first: cell {skipped[0]})")
    return problems


def check_answers_hidden(html_dir: Path, docs: list[str]) -> list[str]:
    """Every page with a Questions section has an Answers section with one closed dropdown per question,
    titled "Answer k" in order, and every code cell among the answers folded away (myst-nb's hide-cell)."""
    problems = []
    for d in docs:
        if not page(html_dir, d).is_file():
            continue
        dom = _soup(page(html_dir, d))
        questions = dom.find("section", id="questions")
        if questions is None:
            continue
        items = questions.find("ol").find_all("li", recursive=False) if questions.find("ol") else []
        answers = dom.find("section", id="answers")
        if answers is None:
            problems.append(f"{d}: {len(items)} questions and no Answers section")
            continue
        titles = [
            a.find(class_="admonition-title").get_text(strip=True)
            for a in answers.select("div.admonition")
            if "dropdown" in a.get("class", [])
        ]
        if titles != [f"Answer {k}" for k in range(1, len(items) + 1)]:
            problems.append(f"{d}: {len(items)} questions but dropdown answers {titles}")
        for cell in answers.select("div.cell"):
            folded = cell.find("details")
            if (
                not {"tag_hide-cell", "tag_hide-input"} & set(cell.get("class", []))
                or folded is None
                or folded.has_attr("open")
            ):
                problems.append(f"{d}: a code cell among the answers is shown, not folded away")
                break
    return problems


def check_offline(html_dir: Path, docs: list[str]) -> list[str]:
    "Nothing is loaded from another host; the MathJax the pages load is in the site."
    problems = []
    external = re.compile(r"^(https?:)?//")
    pages = _pages(html_dir, docs)
    if (Path(html_dir) / "index.html").is_file():
        pages.append(("index", Path(html_dir) / "index.html"))
    for d, p in pages:
        s = soup(p)
        for tag, attr in [("script", "src"), ("img", "src"), ("iframe", "src")]:
            for el in s.find_all(tag):
                if external.match(el.get(attr, "")):
                    problems.append(f"{d}: <{tag}> loads {el[attr]}")
        for el in s.find_all("link"):
            rel = set(el.get("rel") or [])
            if rel & {"stylesheet", "preload", "modulepreload"} and external.match(el.get("href", "")):
                problems.append(f"{d}: <link rel={sorted(rel)}> loads {el['href']}")
        if s.select(".tf-figure"):  # interactive figures: plotly.js from the site
            srcs = [el["src"] for el in s.find_all("script", src=True) if "plotly" in el["src"].lower()]
            if not srcs:
                problems.append(f"{d}: has an interactive figure but loads no plotly.js")
            for src in srcs:
                if external.match(src) or not (p.parent / src.split("?")[0]).is_file():
                    problems.append(f"{d}: plotly script {src} is not in the site")
            if len(p.read_bytes()) > 3_000_000:
                problems.append(
                    f"{d}: the page is {len(p.read_bytes()) // 1_000_000} MB: "
                    "a figure carries its own plotly.js (TRANSFORMER_FIGURES_SITE unset?)"
                )
        if s.select(".math"):
            srcs = [el["src"] for el in s.find_all("script", src=True) if "mathjax" in el["src"].lower()]
            if not srcs:
                problems.append(f"{d}: has math but loads no MathJax")
            for src in srcs:
                if not external.match(src) and not (p.parent / src.split("?")[0]).is_file():
                    problems.append(f"{d}: MathJax script {src} is not in the site")
    return problems


def check_module_docs(html_dir: Path, docs: list[str]) -> list[str]:
    "The address each module's `Docs:` line names (relative to the Documentation URL) is in the site."
    problems = []
    for module in sorted((ROOT / "transformer").glob("*.py")):
        line = re.search(r"Docs: (\S+?\.html\.md)", module.read_text(encoding="utf-8"))
        if line is None:
            continue
        name = line.group(1).rsplit("/", 1)[-1]
        if not (Path(html_dir) / name).is_file():
            problems.append(f"transformer/{module.name}: its Docs: address {name} is not in the site")
    return problems


def check_symbol_links(html_dir: Path, docs: list[str]) -> list[str]:
    "Each link of nbdev's index (`transformer/_modidx.py`) names a page that leads to the defining cell."
    problems = []
    for link, (name, chapter, _) in sorted(symbol_links(ROOT).items()):
        redirect = Path(html_dir) / name
        if not redirect.is_file() or f'url={chapter}.html"' not in redirect.read_text(encoding="utf-8"):
            problems.append(f"{link}: {name} is not in the site or does not lead to {chapter}.html")
        elif not soup(page(html_dir, chapter)).find(id="symbol-" + link.partition("#")[2]):
            problems.append(f"{link}: no cell of {chapter}.html has the id symbol-{link.partition('#')[2]}")
    return problems


# ---------------------------------------------------------------------- browser check
STATIC_CHECKS = [
    check_toc_pages,
    check_no_extra_pages,
    check_no_cell_errors,
    check_executed,
    check_offline,
    check_answers_hidden,
    check_module_docs,
    check_symbol_links,
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    ap.add_argument("--no-browser", action="store_true", help="skip the headless Chromium check")
    args = ap.parse_args(argv)
    html_dir, docs = Path(args.html), toc_docs()
    problems = [p for check in STATIC_CHECKS for p in check(html_dir, docs)]
    if not args.no_browser:
        missing = missing_browser()
        if missing:
            problems.append(missing)
        else:
            problems += check_in_browser(html_dir, docs)
    for p in problems:
        print("PROBLEM:", p)
    print(f"{len(docs)} pages checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
