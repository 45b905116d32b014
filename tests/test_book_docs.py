"""tools/book/book_docs.py without a book build: the `Docs:` files it writes for the package's modules.

The same function runs at the end of every HTML build (tests/test_book.py checks the built site).
"""

import json
import re
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
