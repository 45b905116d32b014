"""Headless Chromium for the checks of the built site, with the network off: `chromium()` starts it
(driven by Selenium through chromedriver), `serve()` serves the site on a local port,
`rendered_dom()` reads a page once MathJax has typeset it, and `requests()` lists what a page
asked for. check_site, figure_check and translator_check use it; `missing_browser()` says why
it cannot run here.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

from bs4 import BeautifulSoup

BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"]
BROWSER_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
]
# The network is off: every request goes to a proxy that does not exist (loopback, the local
# server of the checks, is never proxied).
NETWORK_OFF = ["--proxy-server=http://127.0.0.1:9"]


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
        for flag in [
            *flags,
            *NETWORK_OFF,
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
        ]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
        try:
            session.set_script_timeout(120)
            session.set_page_load_timeout(120)
            session.get("about:blank")  # leave the start page, forget its requests
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


# The book's pages as the browser shows them (tools/book/check_site.py runs this check).
TEX_LEFT = re.compile(r"\$\$|\\\(|\\\)|\\\[|\\\]|\\begin\{|\$[^$\n]*\\[A-Za-z]+[^$\n]*\$")


def _text_outside_code(node) -> str:
    skip = {
        "script",
        "style",
        "code",
        "pre",
        "textarea",
        "mjx-container",
        "mjx-assistive-mml",
        "noscript",
        "template",
    }
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
            if not (Path(html_dir) / f"{d}.html").is_file():
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
                problems.append(
                    f"{d}: {len(untypeset)} of {len(maths)} math elements not typeset by MathJax, e.g. {sample!r}"
                )
            answers = main.find("section", id="answers")
            if answers is not None:  # sphinx-togglebutton folds each answer away
                dropdowns = answers.select("div.admonition.dropdown")
                if not dropdowns or any("toggle-hidden" not in a.get("class", []) for a in dropdowns):
                    problems.append(
                        f"{d}: the browser shows answers that should be folded away ({len(dropdowns)} dropdowns)"
                    )
            for m in re.finditer(TEX_LEFT, _text_outside_code(main)):
                problems.append(f"{d}: raw TeX left in the page: {m.group(0)[:80]!r}")
                break
    return problems
