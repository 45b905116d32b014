"""Play with the book's interactive figures in headless Chromium, with the network off.

    python -m tools.book.figure_check [_build/html]

Every page with a figure (`<div class="tf-figure">`, see transformer_course/figures/__init__.py) is opened from a
local HTTP server in Chromium, driven by Selenium through chromedriver (tools/book/browser.py,
the browser of the page check too). For each figure, each control is used the way a reader
uses it: a click on a Plotly button, a click on a Plotly slider's rail, arrow keys on an HTML
range input, and in a clickable figure a click on each point (or, in a block diagram, near the
corner of each area) that stands for a button. After
each, the plot must look different from before (its drawn SVG and images
changed). Chromium runs behind a proxy that does not exist, so a page that needs the internet
cannot get it, and every request the page makes is read from Chrome's performance log: any
request that is not to the local server fails the check.
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

from tools.book import browser as web  # the local server and the browser

ROOT = Path(__file__).resolve().parents[2]


class Page:
    "The browser's tab, as the check uses it."

    def __init__(self, session):
        self.session = session

    def open(self, url, timeout=60):
        "Load `url` (Selenium waits for the load event)."
        self.session.set_page_load_timeout(timeout)
        self.session.get(url)

    def js(self, expression):
        "Evaluate `expression` in the page and return its value."
        return self.session.execute_script(f"return ({expression});")

    def click(self, x, y):
        "A left click at (x, y), in the page's viewport coordinates."
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        actions = ActionBuilder(self.session)
        actions.pointer_action.move_to_location(round(x), round(y)).click()
        actions.perform()

    def key(self, key):
        "Press and release `key` (a selenium Keys value) in the element that has the focus."
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.session).send_keys(key).perform()


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
  if (fig.dataset.clickable) {
    // points that stand for buttons (transformer_course.figures.interactive(..., clickable=True)): click one
    // point per button, each a different one from the button active before it
    let last = gd._fullLayout.updatemenus[0].active;
    const data = gd.data[0].customdata;
    const fresh = (b) => b !== null && b !== undefined && b !== last &&
                         !out.some(o => o.kind === 'point' && o.button === b);
    fig.querySelectorAll('g.scatterlayer path.point').forEach((p, j) => {
      if (!fresh(data[j])) return;
      out.push({kind: 'point', name: 'point ' + j, button: data[j],
                at: centre(p.getBoundingClientRect())});
      last = data[j];
    });
    if (gd._fullData[0].type === 'heatmap') {
      // areas that stand for buttons (transformer_course.figures.block_diagram): click each cell near its
      // lower left corner, not at its centre, so that the whole area has to answer
      const edges = gd.calcdata[0][0], xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
      const box = gd.getBoundingClientRect();
      data.forEach((row, i) => row.forEach((b, j) => {
        if (!fresh(b)) return;
        const x = edges.x[j] + 0.1 * (edges.x[j + 1] - edges.x[j]);
        const y = edges.y[i] + 0.15 * (edges.y[i + 1] - edges.y[i]);
        out.push({kind: 'point', name: `area ${i},${j}`, button: b,
                  at: [box.left + xa._offset + xa.l2p(x), box.top + ya._offset + ya.l2p(y)]});
        last = b;
      }));
    }
  }
  fig.querySelectorAll('input[type=range]').forEach((inp, i) => {
    out.push({kind: 'range', name: inp.dataset.name || 'range ' + i, index: i,
              value: +inp.value, max: +inp.max});
  });
  return out;
})()"""


def _digest(text):
    return hashlib.sha1((text or "").encode()).hexdigest()


def _settle(page):
    time.sleep(0.6)  # Plotly redraws asynchronously (and animates sliders)


def _use_control(page, i, control):
    "Use one control of figure i; return a description of what was done."
    kind = control["kind"]
    if kind == "button":
        page.click(*control["at"])
        return f"clicked button {control['name']!r}"
    if kind == "point":
        page.click(*control["at"])
        return f"clicked {control['name']} (button {control['button']})"
    if kind == "slider":
        page.click(*control["at"])
        return f"clicked {control['name']} at step {control['target']}"
    if kind == "range":
        from selenium.webdriver.common.keys import Keys

        page.js(
            f"document.querySelectorAll('.tf-figure')[{i}]"
            f".querySelectorAll('input[type=range]')[{control['index']}].focus()"
        )
        if control["value"] < control["max"]:
            page.key(Keys.ARROW_RIGHT)
            return f"pressed ArrowRight on slider {control['name']!r}"
        page.key(Keys.ARROW_LEFT)
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
        controls = page.js(_CONTROLS.replace("FIGURE", str(i)))  # scrolls the figure into view
        if not controls:
            problems.append(f"{name}: figure {i + 1} has no control to move")
        for control in controls:
            before = _digest(page.js(_LOOK.replace("FIGURE", str(i))))
            done = _use_control(page, i, control)
            _settle(page)
            if _digest(page.js(_LOOK.replace("FIGURE", str(i)))) == before:
                problems.append(f"{name}: figure {i + 1}: {done}, and the figure did not change")
    return problems


def check_figures(html_dir, pages, browser=None, flags=web.BROWSER_FLAGS):
    """Use every control of every figure on `pages` (paths relative to html_dir, e.g.
    'chapters/01_attention.html'); problems as a list of one-line messages."""
    problems = []
    with web.serve(html_dir) as base, web.chromium(browser, flags) as session:
        page = Page(session)
        for name in pages:
            web.requests(session)  # forget the requests of earlier pages
            problems += check_page(page, base + name, name)
            for url in web.requests(session):
                if not url.startswith((base, "data:", "blob:", "about:")):
                    problems.append(f"{name}: the page requested {url[:120]} (the site must work offline)")
    return problems


def figure_pages(html_dir):
    "The pages of the site that have an interactive figure."
    html_dir = Path(html_dir)
    return sorted(
        str(p.relative_to(html_dir))
        for p in html_dir.rglob("*.html")
        if 'class="tf-figure"' in p.read_text(encoding="utf-8", errors="replace")
    )


def main(argv=None):
    html_dir = Path((argv or sys.argv[1:] or [ROOT / "_build" / "html"])[0])
    missing = web.missing_browser()
    if missing:
        print(missing)
        return 1
    pages = figure_pages(html_dir)
    problems = check_figures(html_dir, pages)
    for p in problems:
        print("PROBLEM:", p)
    print(f"{len(pages)} pages with figures checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
