"""Check a built book (_build/html) the way a reader would see it.

    python tools/check_site.py [_build/html] [--no-browser]

Static checks on the HTML files:
  - every page listed in _toc.yml is on the site, and no other page is (no exercise,
    solution, test or package file);
  - no executed cell shows an error (traceback output, error output classes);
  - every code cell of every chapter ran (the executed notebooks are in the build's
    jupyter-cache, _build/.jupyter_cache);
  - no page loads a script, stylesheet or image from another host (the site works
    offline), and the MathJax the pages load is the copy inside the site.
Browser check (headless Chromium driven by Selenium through chromedriver; `--no-browser`
skips it):
  - each page of the toc is opened from a local HTTP server, MathJax's first typesetting is
    waited for, and the DOM is read: every math element must have been typeset (an
    mjx-container inside it) and no TeX delimiter ($$, \\(, \\[, $..\\..$, \\begin{...})
    may be left in the text outside code.
tools/figure_check.py drives the same browser, started by `chromium()` below.

Exit status 1 and a list of problems when something is wrong. tests/test_book.py runs
the same checks, one test each.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from pathlib import Path

import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]

# Pages Sphinx writes besides the documents of the toc.
SPHINX_PAGES = {"index.html", "search.html", "genindex.html", "py-modindex.html"}
TEX_LEFT = re.compile(r"\$\$|\\\(|\\\)|\\\[|\\\]|\\begin\{|\$[^$\n]*\\[A-Za-z]+[^$\n]*\$")
BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"]
BROWSER_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
]
# The network is off: every request goes to a proxy that does not exist (loopback, the local
# server of the checks, is never proxied).
NETWORK_OFF = ["--proxy-server=http://127.0.0.1:9"]


# ---------------------------------------------------------------------------- the toc
# one reader of _toc.yml for the build and its checks
from book_execute import toc_docs  # noqa: E402


def page(html_dir: Path, doc: str) -> Path:
    return Path(html_dir) / f"{doc}.html"


@functools.lru_cache(maxsize=None)
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
    allowed = {f"{d}.html" for d in docs} | SPHINX_PAGES
    problems = []
    for p in sorted(html_dir.rglob("*")):
        rel = p.relative_to(html_dir).as_posix()
        top = rel.split("/")[0]
        if p.is_file() and p.suffix == ".html" and top not in {"_static", "_sources", "_images"} \
                and rel not in allowed:
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
            problems.append(f"{d}: no executed notebook in {cache_dir} (tools/book_execute.py)")
            continue
        skipped = [i for i, c in enumerate(nb.cells)
                   if c["cell_type"] == "code" and "".join(c["source"]).strip()
                   and "skip-execution" not in c.get("metadata", {}).get("tags", [])
                   and c.get("execution_count") is None]
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
        titles = [a.find(class_="admonition-title").get_text(strip=True)
                  for a in answers.select("div.admonition") if "dropdown" in a.get("class", [])]
        if titles != [f"Answer {k}" for k in range(1, len(items) + 1)]:
            problems.append(f"{d}: {len(items)} questions but dropdown answers {titles}")
        for cell in answers.select("div.cell"):
            folded = cell.find("details")
            if not {"tag_hide-cell", "tag_hide-input"} & set(cell.get("class", [])) or folded is None \
                    or folded.has_attr("open"):
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
        if s.select(".tf-figure"):                   # interactive figures: plotly.js from the site
            srcs = [el["src"] for el in s.find_all("script", src=True) if "plotly" in el["src"].lower()]
            if not srcs:
                problems.append(f"{d}: has an interactive figure but loads no plotly.js")
            for src in srcs:
                if external.match(src) or not (p.parent / src.split("?")[0]).is_file():
                    problems.append(f"{d}: plotly script {src} is not in the site")
            if len(p.read_bytes()) > 3_000_000:
                problems.append(f"{d}: the page is {len(p.read_bytes()) // 1_000_000} MB: "
                                "a figure carries its own plotly.js (TRANSFORMER_FIGURES_SITE unset?)")
        if s.select(".math"):
            srcs = [el["src"] for el in s.find_all("script", src=True) if "mathjax" in el["src"].lower()]
            if not srcs:
                problems.append(f"{d}: has math but loads no MathJax")
            for src in srcs:
                if not external.match(src) and not (p.parent / src.split("?")[0]).is_file():
                    problems.append(f"{d}: MathJax script {src} is not in the site")
    return problems


# ---------------------------------------------------------------------- browser check
def find_browser() -> str | None:
    "Chromium or Chrome: $CHROMIUM, or the first of the usual names on PATH."
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for name in BROWSER_NAMES:
        if shutil.which(name):
            return shutil.which(name)
    return None


def find_driver() -> str | None:
    "chromedriver, of the same version as the browser: $CHROMEDRIVER, else on PATH (Debian: chromium-driver)."
    return os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")


def missing_browser() -> str | None:
    "Why the browser checks cannot run here, or None when they can."
    if find_browser() is None:
        return "no Chromium/Chrome found (Debian: apt-get install chromium; or set CHROMIUM)"
    if find_driver() is None:
        return "no chromedriver found (Debian: apt-get install chromium-driver; or set CHROMEDRIVER)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    return None


@contextlib.contextmanager
def chromium(browser: str | None = None, flags=BROWSER_FLAGS, size=(1200, 900)):
    """Headless Chromium with the network off, driven by Selenium through chromedriver; yields
    the WebDriver. Every request the pages make is in Chrome's performance log (`requests`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = browser or find_browser(), find_driver()
    if browser is None or driver is None:
        raise RuntimeError(missing_browser())
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        for flag in [*flags, *NETWORK_OFF, f"--user-data-dir={profile}",
                     f"--window-size={size[0]},{size[1]}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
        try:
            session.set_script_timeout(120)
            session.set_page_load_timeout(120)
            session.get("about:blank")                 # leave the start page, forget its requests
            requests(session)
            yield session
        finally:
            session.quit()


def requests(session) -> list[str]:
    "The URLs the browser asked for since the last call (Chrome's performance log, read and emptied)."
    urls = []
    for entry in session.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(html_dir: Path):
    "Serve html_dir on a free local port for the duration of the block; yields the base URL."
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# Resolves once MathJax has typeset the page (its startup promise), or at once on a page
# without it; a MathJax that never starts leaves the math untypeset, which the check reports.
_MATHJAX_DONE = """const done = arguments[arguments.length - 1];
const until = Date.now() + arguments[0];
(function wait() {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(() => done('typeset'), (e) => done('failed: ' + e));
  } else if (!document.querySelector('script[src*="mathjax" i]') || Date.now() > until) {
    done('no MathJax');
  } else {
    setTimeout(wait, 100);
  }
})();"""


def rendered_dom(session, url: str, wait_ms: int = 60000) -> str:
    "The DOM of `url` once it has loaded and MathJax has typeset it."
    session.get(url)
    session.execute_async_script(_MATHJAX_DONE, wait_ms)
    return session.execute_script("return document.documentElement.outerHTML")


def _text_outside_code(node) -> str:
    skip = {"script", "style", "code", "pre", "textarea", "mjx-container", "mjx-assistive-mml",
            "noscript", "template"}
    out = []
    for s in node.find_all(string=True):
        if any(getattr(parent, "name", None) in skip for parent in s.parents):
            continue
        out.append(str(s))
    return "\n".join(out)


def check_in_browser(html_dir: Path, docs: list[str], browser: str | None = None) -> list[str]:
    "Open each toc page in headless Chromium; MathJax must have typeset all math; answers start folded."
    problems = []
    with serve(html_dir) as base, chromium(browser) as session:
        for d in docs:
            if not page(html_dir, d).is_file():
                problems.append(f"{d}: not on the site")
                continue
            dom = BeautifulSoup(rendered_dom(session, f"{base}{d}.html"), "html.parser")
            main = dom.find("main") or dom
            if not main.find("h1"):
                problems.append(f"{d}: the browser shows no page title")
            maths = main.select(".math")
            untypeset = [m for m in maths if not m.find("mjx-container")]
            if untypeset:
                sample = untypeset[0].get_text(strip=True)[:80]
                problems.append(f"{d}: {len(untypeset)} of {len(maths)} math elements not typeset "
                                f"by MathJax, e.g. {sample!r}")
            answers = main.find("section", id="answers")
            if answers is not None:                   # sphinx-togglebutton folds each answer away
                dropdowns = answers.select("div.admonition.dropdown")
                if not dropdowns or any("toggle-hidden" not in a.get("class", []) for a in dropdowns):
                    problems.append(f"{d}: the browser shows answers that should be folded away "
                                    f"({len(dropdowns)} dropdowns)")
            for m in re.finditer(TEX_LEFT, _text_outside_code(main)):
                problems.append(f"{d}: raw TeX left in the page: {m.group(0)[:80]!r}")
                break
    return problems


STATIC_CHECKS = [check_toc_pages, check_no_extra_pages, check_no_cell_errors, check_executed,
                 check_offline, check_answers_hidden]


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
