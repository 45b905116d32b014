"""Type sentences into chapter 10's translator box in headless Chromium, with the network off.

    python -m tools.book.translator_check [_build/html] [--sentences 20] [--data MULTI30K_FOLDER]

Chapter 10's page is opened from a local HTTP server in Chromium (tools/book/browser.py: driven
by Selenium through chromedriver, behind a proxy that does not exist, so nothing outside the
local server can load). Checks:
  - the box starts (its data-state becomes "ready") and every request the page makes is to the
    local server;
  - the first --sentences German sentences of test_2016_flickr, typed into the box, give
    exactly the greedy translations that Python computes with the same ONNX files
    (transformer.onnx_export.OnnxTranslator on the site's _static/translator, 8-bit);
  - bad input (an empty box, more pieces than the model's maximum, more characters than
    MAX_CHARS) gets, within seconds and never a hang, the message Python's check_source gives
    it (OnnxTranslator.input_ids); an emoji is translated as Python translates it (one rule);
  - opened as a plain file, the page says how to serve it.
Prints the time the box took to load, each translation's time as the page reports it (a
benchmark: nothing is asserted about the times) and the size of what the translator adds to
the site. Exit status 1 and the problems when something is wrong; tests/test_book.py runs it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from tools.book import browser as web  # the local server and the browser

ROOT = Path(__file__).resolve().parents[2]

PAGE = "chapters/10_translation.html"
STATIC = "_static/translator"
WAIT_S = 120
LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "cs": "Czech"}


def site_size(html_dir: Path) -> int:
    "Bytes the translator adds to the site: everything under _static/translator."
    return sum(f.stat().st_size for f in (html_dir / STATIC).rglob("*") if f.is_file())


def _state(session, until: set[str], timeout: float = WAIT_S) -> str:
    "Wait until the box's data-state is one of `until` (or the time is up); return it."
    end = time.monotonic() + timeout
    while True:
        state = session.execute_script(
            "const b = document.getElementById('tf-translator'); return b && b.dataset.state;"
        )
        if state in until or time.monotonic() > end:
            return state
        time.sleep(0.05)


def _submit(session, text: str, typed: bool = True) -> tuple[str, str, str]:
    """Type `text` into the box (or, `typed=False`, paste it: chromedriver types no emoji)
    and press the button: (state, English, status line)."""
    from selenium.webdriver.common.by import By

    box = session.find_element(By.ID, "tf-source")
    box.clear()
    if typed:
        box.send_keys(text)
    else:
        session.execute_script("arguments[0].value = arguments[1];", box, text)
    session.find_element(By.ID, "tf-translate").click()
    state = _state(session, {"done", "error"}, timeout=60)
    read = lambda id_: session.find_element(By.ID, id_).text
    return state, read("tf-target"), read("tf-status")


def check(html_dir: Path, n: int = 20, data=None, out=print) -> tuple[list[str], dict]:
    """Problems found, and the measurements (load and translation times, site size); the
    sentences come from the Multi30k files in `data` (default: $MULTI30K_DIR, the cache)."""
    from transformer.data import load_split
    from transformer.onnx_export import OnnxTranslator
    from transformer.translators import MAX_CHARS, InputError

    problems, html_dir = [], Path(html_dir)
    onnx = OnnxTranslator(html_dir / STATIC, int8=True)
    src, tgt = onnx.langs
    sources = [s for s, _ in load_split("test_2016_flickr", data, src=src, tgt=tgt)[:n]]
    # and one rule for odd input: what Python translates, the page translates (an emoji)
    sources += ["Zwei Hunde 🐕 spielen."] if src == "de" else []
    expected = onnx.translate(sources)
    report = {"site_bytes": site_size(html_dir), "translate_ms": []}
    with web.serve(html_dir) as base, web.chromium() as session:
        session.get(base + PAGE)
        state = _state(session, {"ready", "error"})
        if state != "ready":
            status = session.execute_script("return document.getElementById('tf-translator').innerText")
            return [f"{PAGE}: the translator did not start ({state}): {status}"], report
        report["load_ms"] = int(
            session.execute_script("return document.getElementById('tf-translator').dataset.loadMs")
        )
        direction = session.find_element("id", "tf-direction").text
        if src not in LANGUAGE_NAMES or LANGUAGE_NAMES[src] not in direction:
            problems.append(f"{PAGE}: the box says {direction!r}, not what it translates from")
        for sentence, python in zip(sources, expected):
            state, english, status = _submit(session, sentence, typed="🐕" not in sentence)
            if state != "done" or english != python:
                problems.append(
                    f"{sentence!r}: the page gave {english!r} ({state}: {status}), Python's OnnxTranslator {python!r}"
                )
            report["translate_ms"].append(
                int(session.execute_script("return document.getElementById('tf-translator').dataset.translateMs"))
            )
        bad = {"empty": "", "too long": "Hund " * 300, "too many characters": "a" * (MAX_CHARS + 1)}
        for name, text in bad.items():
            try:
                onnx.input_ids(text)
                python = None
            except InputError as e:
                python = str(e)  # Python's message for it
            start = time.monotonic()
            state, english, status = _submit(session, text, typed=False)
            if state != "error" or python is None or python not in status or english:
                problems.append(
                    f"{name} input: expected Python's message {python!r} and no "
                    f"translation, got {state!r}, {status!r}, {english!r}"
                )
            report[f"{name} message"] = f"{status} ({time.monotonic() - start:.1f} s)"
        stray = [u for u in web.requests(session) if not u.startswith((base, "data:", "blob:"))]
        problems += [f"{PAGE}: requested {u} (not the local server)" for u in stray]
        session.get((html_dir / PAGE).resolve().as_uri())
        text = session.find_element("id", "tf-translator").text
        if "http.server" not in text:
            problems.append(f"{PAGE} opened as a file says {text!r}, not how to serve it")
    times = report["translate_ms"]
    out(
        f"translator box: loaded in {report['load_ms']} ms; {len(times)} sentences translated in "
        f"{statistics.median(times) if times else 0:.0f} ms each (median; {min(times, default=0)}-"
        f"{max(times, default=0)} ms); adds {report['site_bytes'] / 1e6:.1f} MB to the site"
    )
    for name in bad:
        out(f"  {name} input -> {report[f'{name} message']}")
    return problems, report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    p.add_argument("--sentences", type=int, default=20)
    p.add_argument("--data", help="folder of the Multi30k .gz files (default: $MULTI30K_DIR)")
    a = p.parse_args(argv)
    problems, _ = check(Path(a.html), a.sentences, a.data)
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
