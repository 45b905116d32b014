"""Play with the book's interactive figures in headless Chromium, with the network off.

    python tools/figure_check.py [_build/html]

Every page with a figure (`<div class="tf-figure">`, see figures/__init__.py) is opened from a
local HTTP server in Chromium, driven through the DevTools protocol over a pipe (no extra
Python package). For each figure, each control is used the way a reader uses it: a click on a
Plotly button, a click on a Plotly slider's rail, arrow keys on an HTML range input. After
each, the plot must look different from before (its drawn SVG and images changed). Chromium
runs behind a proxy that does not exist, so a page that needs the internet cannot get it, and
every request the page makes is recorded: any request that is not to the local server fails
the check.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
import check_site  # noqa: E402  (the local server, the browser and its flags)
NETWORK_OFF = ["--proxy-server=http://127.0.0.1:9"]        # loopback is never proxied


class Browser:
    "Headless Chromium driven over --remote-debugging-pipe (fd 3: commands in, fd 4: replies out)."

    def __init__(self, executable, flags, timeout=60):
        self.timeout, self._next, self._lock = timeout, 0, threading.Condition()
        self._replies, self.events = {}, []
        to_browser = os.pipe()
        from_browser = os.pipe()
        # move our ends out of the way of fds 3 and 4, which the child must receive
        fds = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (*to_browser, *from_browser)]
        for fd in (*to_browser, *from_browser):
            os.close(fd)
        read_in, self._write, self._read, write_out = fds

        def child():
            os.dup2(read_in, 3)
            os.dup2(write_out, 4)

        self._profile = tempfile.TemporaryDirectory(prefix="chromium-")
        self.proc = subprocess.Popen(
            [executable, *flags, *NETWORK_OFF, "--remote-debugging-pipe",
             f"--user-data-dir={self._profile.name}", "--window-size=1200,900", "about:blank"],
            pass_fds=(3, 4), preexec_fn=child, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(read_in)
        os.close(write_out)
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    def _read_loop(self):
        buf = b""
        with os.fdopen(self._read, "rb", buffering=0) as f:
            while chunk := f.read(1 << 16):
                buf += chunk
                *messages, buf = buf.split(b"\0")
                with self._lock:
                    for raw in messages:
                        msg = json.loads(raw)
                        if "id" in msg:
                            self._replies[msg["id"]] = msg
                        else:
                            self.events.append(msg)
                    self._lock.notify_all()

    def send(self, method, session=None, **params):
        "Send one DevTools command and wait for its result."
        with self._lock:
            self._next += 1
            i = self._next
        msg = {"id": i, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        with self._lock:
            while i not in self._replies:
                if not self._lock.wait(timeout=deadline - time.monotonic()):
                    raise TimeoutError(f"Chromium did not answer {method} within {self.timeout} s")
            reply = self._replies.pop(i)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._write)
        self._profile.cleanup()


class Page:
    "One tab of the browser."

    def __init__(self, browser):
        self.b = browser
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.send(f"{domain}.enable")

    def send(self, method, **params):
        return self.b.send(method, session=self.session, **params)

    def open(self, url, timeout=60):
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not self.js(f"location.href === {json.dumps(url)} && document.readyState === 'complete'"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not finish loading in {timeout} s")
            time.sleep(0.1)

    def js(self, expression):
        "Evaluate `expression` in the page (promises awaited) and return its value."
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"JavaScript error: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r["result"].get("value")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def key(self, key, code, keycode):
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                      windowsVirtualKeyCode=keycode, nativeVirtualKeyCode=keycode)

    def requests(self):
        return [ev["params"]["request"]["url"] for ev in self.b.events
                if ev.get("method") == "Network.requestWillBeSent" and ev.get("sessionId") == self.session]


# What a figure shows: everything Plotly drew in its plot area (heatmap images, lines, bars,
# shapes, annotations, axis labels), not the controls themselves.
_LOOK = """(() => {
  const fig = document.querySelectorAll('.tf-figure')[FIGURE];
  const parts = fig.querySelectorAll('.cartesianlayer, .layer-above, .annotation, .gtitle');
  return Array.from(parts).map(e => e.innerHTML).join('|') + '|' +
         Array.from(fig.querySelectorAll('.tf-caption')).map(e => e.textContent).join('|');
})()"""

# The controls of figure i, with the point to click (page coordinates after scrolling it into view).
_CONTROLS = """(() => {
  const fig = document.querySelectorAll('.tf-figure')[FIGURE];
  fig.scrollIntoView({block: 'center'});
  const out = [];
  const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];
  const gd = fig.querySelector('.js-plotly-plot');
  // button rows: starting after the active button, so that every click changes something
  fig.querySelectorAll('g.updatemenu-container').forEach((c, m) => {
    const buttons = c.querySelectorAll('g.updatemenu-button'), n = buttons.length;
    const active = Math.max(0, gd._fullLayout.updatemenus[m].active);
    for (let j = 1; j <= n; j++) {
      const b = buttons[(active + j) % n];
      out.push({kind: 'button', name: b.textContent.trim(), at: centre(b.getBoundingClientRect())});
    }
  });
  fig.querySelectorAll('g.slider-container').forEach((s, i) => {
    const opts = gd._fullLayout.sliders[i], n = opts.steps.length;
    const target = opts.active < n - 1 ? opts.active + 1 : opts.active - 1;
    const rail = s.querySelector('rect.slider-rail-rect').getBoundingClientRect();
    // steps sit evenly along the rail; a click snaps to the nearest one
    const x = rail.left + 2 + target * (rail.width - 4) / Math.max(1, n - 1);
    out.push({kind: 'slider', name: 'slider ' + i, target: target,
              at: [x, rail.top + rail.height / 2]});
  });
  fig.querySelectorAll('input[type=range]').forEach((inp, i) => {
    out.push({kind: 'range', name: inp.dataset.name || 'range ' + i, index: i,
              value: +inp.value, max: +inp.max});
  });
  return out;
})()"""


def _digest(text):
    return hashlib.sha1((text or "").encode()).hexdigest()


def _settle(page):
    time.sleep(0.6)                                   # Plotly redraws asynchronously (and animates sliders)


def _use_control(page, i, control):
    "Use one control of figure i; return a description of what was done."
    kind = control["kind"]
    if kind == "button":
        page.click(*control["at"])
        return f"clicked button {control['name']!r}"
    if kind == "slider":
        page.click(*control["at"])
        return f"clicked {control['name']} at step {control['target']}"
    if kind == "range":
        page.js(f"document.querySelectorAll('.tf-figure')[{i}]"
                f".querySelectorAll('input[type=range]')[{control['index']}].focus()")
        if control["value"] < control["max"]:
            page.key("ArrowRight", "ArrowRight", 39)
            return f"pressed ArrowRight on slider {control['name']!r}"
        page.key("ArrowLeft", "ArrowLeft", 37)
        return f"pressed ArrowLeft on slider {control['name']!r}"
    raise ValueError(kind)


def check_page(page, url, name):
    "Open one page and use every control of every figure; return the problems found."
    problems = []
    page.open(url)
    n = page.js("document.querySelectorAll('.tf-figure').length")
    deadline = time.monotonic() + 30
    while page.js("document.querySelectorAll('.tf-figure .js-plotly-plot .main-svg').length") < n:
        if time.monotonic() > deadline:
            return [f"{name}: Plotly did not draw every figure (is plotly.min.js served?)"]
        time.sleep(0.2)
    _settle(page)
    for i in range(n):
        controls = page.js(_CONTROLS.replace('FIGURE', str(i)))   # scrolls the figure into view
        if not controls:
            problems.append(f"{name}: figure {i + 1} has no control to move")
        for control in controls:
            before = _digest(page.js(_LOOK.replace('FIGURE', str(i))))
            done = _use_control(page, i, control)
            _settle(page)
            if _digest(page.js(_LOOK.replace('FIGURE', str(i)))) == before:
                problems.append(f"{name}: figure {i + 1}: {done}, and the figure did not change")
    return problems


def check_figures(html_dir, pages, browser, flags):
    """Use every control of every figure on `pages` (paths relative to html_dir, e.g.
    'chapters/01_attention.html'); problems as a list of one-line messages."""
    problems = []
    with check_site.serve(html_dir) as base:
        chromium = Browser(browser, flags)
        try:
            for name in pages:
                page = Page(chromium)
                problems += check_page(page, base + name, name)
                for url in page.requests():
                    if not url.startswith((base, "data:", "blob:", "about:")):
                        problems.append(f"{name}: the page requested {url[:120]} (the site must work offline)")
                page.b.send("Target.closeTarget",
                            targetId=page.send("Target.getTargetInfo")["targetInfo"]["targetId"])
        finally:
            chromium.close()
    return problems


def figure_pages(html_dir):
    "The pages of the site that have an interactive figure."
    html_dir = Path(html_dir)
    return sorted(str(p.relative_to(html_dir)) for p in html_dir.rglob("*.html")
                  if 'class="tf-figure"' in p.read_text(encoding="utf-8", errors="replace"))


def main(argv=None):
    html_dir = Path((argv or sys.argv[1:] or [ROOT / "_build" / "html"])[0])
    browser = check_site.find_browser()
    if browser is None:
        print("no Chromium/Chrome found (set CHROMIUM=/path/to/chromium)")
        return 1
    pages = figure_pages(html_dir)
    problems = check_figures(html_dir, pages, browser, check_site.BROWSER_FLAGS)
    for p in problems:
        print("PROBLEM:", p)
    print(f"{len(pages)} pages with figures checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
