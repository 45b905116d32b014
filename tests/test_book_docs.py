"""tools/book/book_docs.py without a book build: the `Docs:` files it writes for the package's modules.

The same function runs at the end of every HTML build (tests/test_book.py checks the built site).
"""

import json
import re
import runpy
from pathlib import Path

from tools.book import book_docs, check_site

ROOT = Path(__file__).resolve().parents[1]


def written(tmp_path):
    docnames = [f"chapters/{p.stem}" for p in (ROOT / "chapters").glob("*.ipynb")]
    return book_docs.write_docs(ROOT, tmp_path, docnames)


def test_every_module_docs_address_is_written(tmp_path):
    "One file per exporting chapter, named as the module's Docs: line names it; a file missing is reported."
    files = written(tmp_path)
    lines = {
        m.name: re.search(r"Docs: \S+/(\S+?\.html\.md)", m.read_text()) for m in (ROOT / "transformer").glob("*.py")
    }
    named = {m.group(1) for m in lines.values() if m}
    assert len(named) >= 20
    assert {f.name for f in files} == named | {"index.html.md"}  # the index: the package's __init__
    assert check_site.check_module_docs(tmp_path, []) == []
    (tmp_path / "attention.html.md").unlink()
    assert check_site.check_module_docs(tmp_path, []) == [
        "transformer/attention.py: its Docs: address attention.html.md is not in the site"
    ]


def test_a_docs_file_is_the_chapter_as_markdown(tmp_path):
    "Prose and exported code are in it, nbdev's #| lines and cells the book removes are not."
    written(tmp_path)
    text = (tmp_path / "attention.html.md").read_text()
    notebook = json.loads((ROOT / "chapters" / "01_attention.ipynb").read_text())
    removed = [
        "".join(c["source"]).strip()
        for c in notebook["cells"]
        if "remove-cell" in c.get("metadata", {}).get("tags", []) and "".join(c["source"]).strip()
    ]
    assert removed and not any(r in text for r in removed)
    assert text.startswith("<!-- the chapter as Markdown; its page, with outputs: chapters/01_attention.html -->")
    assert re.search(r"```python\n(.*\n)*def scaled_dot_product_attention\(", text)
    assert "#|" not in text
    title = next("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert title.strip() in text
    assert not (tmp_path / "why_attention.html.md").exists()  # a chapter that exports no module


def test_the_cell_defining_each_name_of_a_module():
    "Top-level functions, classes and assignments belong to the cell whose nbdev marker is above them."
    module = "\n".join(
        [
            '"""Docs: ..."""',
            "__all__ = ['f']",
            "# %% ../chapters/01_x.ipynb #aaa",
            "import torch",
            "def f(x):",
            "    y = 1",
            "    return x",
            "# %% ../chapters/01_x.ipynb #bbb",
            "class C:",
            "    def m(self): pass",
            "LIMIT: int = 3",
            "a, b = 1, 2",
        ]
    )
    assert book_docs.defining_cells(module) == {
        "f": ("chapters/01_x", "aaa"),
        "C": ("chapters/01_x", "bbb"),
        "LIMIT": ("chapters/01_x", "bbb"),
    }


def test_every_symbol_nbdev_links_is_found_in_the_cell_that_defines_it():
    "Each of _modidx's links: its page is the chapter's nbdev name, and the cell found defines the symbol."
    from nbdev.config import nbpath2html

    index = runpy.run_path(str(ROOT / "transformer" / "_modidx.py"))["d"]["syms"]
    links = book_docs.symbol_links(ROOT)
    assert len(links) == sum(map(len, index.values())) > 300
    cells = {}
    for module, symbols in index.items():
        for symbol, (link, _) in symbols.items():
            page, chapter, cell = links[link]
            assert page == nbpath2html(Path(chapter + ".ipynb")).name
            if chapter not in cells:
                notebook = json.loads((ROOT / f"{chapter}.ipynb").read_text())
                cells[chapter] = {c["id"]: "".join(c["source"]) for c in notebook["cells"]}
            top = symbol[len(module) + 1 :].split(".")[0]
            assert re.search(rf"^(def|class) {top}\b|^{top}\b.*=", cells[chapter][cell], re.M), (symbol, cell)


def test_the_site_leads_from_each_link_to_its_cell_and_reports_a_missing_one(tmp_path):
    "The root pages redirect to the chapters; check_symbol_links finds each anchor's id there, or says which is missing."
    links = book_docs.symbol_links(ROOT)
    pages = book_docs.write_redirects(ROOT, tmp_path)
    assert sorted(p.name for p in pages) == sorted({name for name, _, _ in links.values()})
    text = (tmp_path / "attention.html").read_text()
    assert 'url=chapters/01_attention.html"' in text and '"#symbol-" + a' in text
    ids = {}
    for link, (_, chapter, _) in links.items():
        ids.setdefault(chapter, []).append("symbol-" + link.partition("#")[2])
    (tmp_path / "chapters").mkdir()
    for chapter, anchors in ids.items():
        cells = "".join(f'<div class="cell" id="{a}"></div>' for a in anchors if a != "symbol-causal_mask")
        (tmp_path / f"{chapter}.html").write_text(f"<main>{cells}</main>")
    assert check_site.check_symbol_links(tmp_path, []) == [
        "attention.html#causal_mask: no cell of chapters/01_attention.html has the id symbol-causal_mask"
    ]


def test_every_cell_id_of_a_chapter_is_its_own():
    "nbdev's markers and the symbol anchors name cells by id; nbformat renames a repeated id at random."
    for chapter in sorted((ROOT / "chapters").glob("*.ipynb")):
        ids = [c.get("id") for c in json.loads(chapter.read_text())["cells"]]
        assert None not in ids and len(set(ids)) == len(ids), chapter.name
