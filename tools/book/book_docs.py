"""Sphinx extension for the book: the addresses nbdev gives the package's modules and symbols are on the site.

nbdev ends each generated module's docstring with `Docs: <Documentation URL>/<name>.html.md`,
where `<name>` is the exporting chapter's file name without its number (`01_attention.ipynb`:
`attention.html.md`), the address of a Markdown copy of the page in nbdev's own sites. The book's
page is `chapters/01_attention.html`, so after an HTML build this writes, at the site's root, one
`<name>.html.md` for every chapter that exports a module: the chapter as Markdown (its prose and
its code, without outputs or nbdev's `#|` lines, cells tagged `remove-cell` left out), headed by
the address of its page. `help(transformer.attention)` then names a file that exists, and a
reader or a tool that wants a module's lesson as plain text has it.

nbdev's index of the package, `transformer/_modidx.py`, links every function, class and method
to `<name>.html#<anchor>` (`attention.html#causal_mask`, `checkpoints.html#checkpoint.load`):
what `show_doc` and other nbdev sites link to. So the code cell of a chapter page that defines a
symbol gets the id `symbol-<anchor>`, and `<name>.html` at the site's root sends a browser on to
the chapter's page, at that cell.
"""

import ast
import functools
import json
import re
import runpy
from pathlib import Path

from docutils import nodes
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


# the marker nbdev writes above each exported cell in a module: the chapter and the cell's id
CELL_MARK = re.compile(r"# %% \.\./(?P<chapter>chapters/\S+)\.ipynb #(?P<cell>\S+)")


def defining_cells(module_text: str) -> dict[str, tuple[str, str]]:
    "Each top-level name a generated module defines: (the chapter, the id of the cell defining it)."
    marks = [(n, m) for n, line in enumerate(module_text.splitlines(), 1) if (m := CELL_MARK.match(line))]
    found = {}
    for node in ast.parse(module_text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        else:
            targets = getattr(node, "targets", [getattr(node, "target", None)])
            names = [t.id for t in targets if isinstance(t, ast.Name)]
        above = [m for line, m in marks if line < node.lineno]
        for name in names if above else []:
            found[name] = (above[-1]["chapter"], above[-1]["cell"])
    return found


def symbol_links(root: Path) -> dict[str, tuple[str, str, str]]:
    "nbdev's link of every symbol of the package: (its page at the site's root, the chapter, the cell's id)."
    index = runpy.run_path(str(Path(root) / "transformer" / "_modidx.py"))["d"]["syms"]
    modules, links = {}, {}
    for module, symbols in index.items():
        for symbol, (link, file) in symbols.items():
            if file not in modules:
                modules[file] = defining_cells((Path(root) / file).read_text(encoding="utf-8"))
            top = symbol[len(module) + 1 :].split(".")[0]
            if top in modules[file]:
                links[link] = (link.partition("#")[0], *modules[file][top])
    return links


def redirect(chapter_page: str) -> str:
    "A page that sends the browser on to the chapter's page, `#anchor` to the cell `#symbol-anchor`."
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{chapter_page}</title>\n'
        f'<script>var a = location.hash.slice(1);\nlocation.replace("{chapter_page}" + (a ? "#symbol-" + a : ""));</script>\n'
        f'<meta http-equiv="refresh" content="0; url={chapter_page}"></head>\n'
        f'<body><p>The lesson is at <a href="{chapter_page}">{chapter_page}</a>.</p></body></html>\n'
    )


def write_redirects(root: Path, outdir: Path) -> list[Path]:
    "Write, at the site's root, the page each of nbdev's links names; the files written."
    pages = {page: f"{chapter}.html" for page, chapter, _ in symbol_links(root).values()}
    for page, chapter_page in sorted(pages.items()):
        (Path(outdir) / page).write_text(redirect(chapter_page), encoding="utf-8")
    return [Path(outdir) / page for page in sorted(pages)]


@functools.cache
def _anchors(srcdir: str) -> dict[str, dict[str, list[str]]]:
    "For each chapter, the ids its cells get: {chapter: {cell id: ['symbol-<anchor>', ...]}}."
    anchors = {}
    for link, (_, chapter, cell) in symbol_links(Path(srcdir)).items():
        anchors.setdefault(chapter, {}).setdefault(cell, []).append("symbol-" + link.partition("#")[2])
    return anchors


def _mark_cells(app, doctree, docname):
    "Give each code cell that defines a linked symbol the ids `symbol-<anchor>`."
    anchors = _anchors(str(app.srcdir)).get(docname)
    if not anchors:
        return
    notebook = json.loads((Path(app.srcdir) / f"{docname}.ipynb").read_text(encoding="utf-8"))
    ids = [cell.get("id") for cell in notebook["cells"]]
    for node in doctree.findall(nodes.container):
        if node.get("nb_element") == "cell_code":
            node["ids"].extend(anchors.get(ids[node["cell_index"]], []))


def _build_finished(app, exception):
    if exception is None and app.builder.format == "html":
        write_docs(Path(app.srcdir), Path(app.outdir), app.env.found_docs)
        write_redirects(Path(app.srcdir), Path(app.outdir))


def setup(app):
    app.connect("doctree-resolved", _mark_cells)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
