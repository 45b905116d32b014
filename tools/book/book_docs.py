"""Sphinx extension for the book: the `Docs:` address of every module of the package is on the site.

nbdev ends each generated module's docstring with `Docs: <Documentation URL>/<name>.html.md`,
where `<name>` is the exporting chapter's file name without its number (`01_attention.ipynb`:
`attention.html.md`), the address of a Markdown copy of the page in nbdev's own sites. The book's
page is `chapters/01_attention.html`, so after an HTML build this writes, at the site's root, one
`<name>.html.md` for every chapter that exports a module: the chapter as Markdown (its prose and
its code, without outputs or nbdev's `#|` lines, cells tagged `remove-cell` left out), headed by
the address of its page. `help(transformer.attention)` then names a file that exists, and a
reader or a tool that wants a module's lesson as plain text has it.
"""

import json
from pathlib import Path

from nbdev.config import nbpath2html


def exports(notebook):
    "The module a chapter exports (`#| default_exp NAME`), or None."
    for cell in notebook["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "code" and line.replace(" ", "").startswith("#|default_exp"):
                return line.split()[-1]
    return None


def docs_address(chapter: Path) -> str:
    "The file name nbdev's `Docs:` line gives the chapter (relative to the Documentation URL)."
    return nbpath2html(Path(chapter.name)).name + ".md"


def as_markdown(notebook, page: str) -> str:
    "The chapter's cells as one Markdown text: prose as it is, code fenced, headed by its page."
    parts = [f"<!-- the chapter as Markdown; its page, with outputs: {page} -->"]
    for cell in notebook["cells"]:
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        text = "".join(cell["source"]).strip()
        if cell["cell_type"] == "code":
            text = "\n".join(l for l in text.splitlines() if not l.startswith("#|")).strip()
            text = f"```python\n{text}\n```" if text else ""
        if text:
            parts.append(text)
    return "\n\n".join(parts) + "\n"


def write_docs(srcdir: Path, outdir: Path, docnames) -> list[Path]:
    "Write `<name>.html.md` into `outdir` for each exporting chapter among `docnames`; the files written."
    written = []
    for doc in sorted(d for d in docnames if d.startswith("chapters/")):
        chapter = Path(srcdir) / f"{doc}.ipynb"
        if not chapter.is_file():
            continue
        notebook = json.loads(chapter.read_text(encoding="utf-8"))
        if exports(notebook) is None:
            continue
        target = Path(outdir) / docs_address(chapter)
        target.write_text(as_markdown(notebook, f"{doc}.html"), encoding="utf-8")
        written.append(target)
    return written


def _build_finished(app, exception):
    if exception is None and app.builder.format == "html":
        write_docs(Path(app.srcdir), Path(app.outdir), app.env.found_docs)


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
