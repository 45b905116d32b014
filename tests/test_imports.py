"""The package follows the book's chapter numbers: a module exported by a chapter imports only
modules of chapters numbered up to its own, and so does the chapter's own code (the cells it does
not export, answers included).

The number is the one in each notebook's title (`# 9.1 Sub-words` -> 9.1). The book's order agrees
with it: Part II is numbered after Part I, so a module of Part I imports only modules of Part I, and
a lesson that uses a Part II tool says so on the import's line (`# ahead:`). A page without a number
(the package's index) comes after every chapter."""

import ast
import json
import math
import re
from pathlib import Path

from transformer_course.reading_time import PART_I, chapter_number, page_path, toc_parts

ROOT = Path(__file__).resolve().parents[1]
LAST = (math.inf,)  # the place of a page without a chapter number


def number_key(number):
    "'7.1' -> (7, 1), '10' -> (10,), None -> LAST: the order of chapter numbers."
    return tuple(int(n) for n in number.split(".")) if number else LAST


def book_notebooks():
    "{document of _toc.yml: its place, number_key of the title's chapter number}, for its notebooks."
    places = {}
    for _, docs in toc_parts(ROOT):
        for doc in docs:
            path = page_path(doc, ROOT)
            if path is not None and path.suffix == ".ipynb":
                places[doc] = number_key(chapter_number(path))
    return places


def code_cells(doc):
    return [
        ("".join(c["source"]), c.get("id"))
        for c in json.loads((ROOT / f"{doc}.ipynb").read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "code"
    ]


def exported(source):
    return re.match(r"\s*#\|\s*export", source) is not None


def module_chapters():
    "{module name: (its chapter's number key, its chapter)}, from each notebook's `#| default_exp`."
    places = {}
    for doc, key in book_notebooks().items():
        for source, _ in code_cells(doc):
            found = re.search(r"#\|\s*default_exp\s+(\S+)", source)
            if found:
                places[found.group(1)] = (key, doc)
    return places


def package_names():
    "{name importable as `from transformer import name`: the module that defines it}."
    tree = ast.parse((ROOT / "transformer" / "__init__.py").read_text())
    return {
        a.asname or a.name: node.module.split(".")[-1]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for a in node.names
    }


def imported_modules(source, names=None):
    """The package's modules that `source` imports, anywhere in it (functions included);
    `from transformer import Name` counts as importing the module that defines Name (`names`)."""
    names = names or {}
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:
                found.update(a.name for a in node.names)
            elif node.module and node.module.split(".")[0] == "transformer":
                parts = node.module.split(".")
                if len(parts) > 1:
                    found.add(parts[1])
                else:
                    found.update(names.get(a.name, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("transformer."))
    return found


def python_source(source):
    "A code cell's source without IPython's magics and shell lines, which ast cannot read."
    return "\n".join("" if re.match(r"\s*[%!]", line) else line for line in source.splitlines())


def forward_imports(places, imports):
    "(module, imported module) pairs whose import goes to a chapter of a higher number."
    return sorted(
        (m, i)
        for m, used in imports.items()
        for i in used
        if m in places and i in places and places[i][0] > places[m][0]
    )


def package_imports():
    return {p.stem: imported_modules(p.read_text()) for p in (ROOT / "transformer").glob("*.py") if p.stem != "_modidx"}


def without_announced_imports(source):
    """`source` without the import statements whose first line says `# ahead:`: a chapter may
    use a tool of a later page where it says so (the guide's rule), on that line."""
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and "# ahead:" in lines[node.lineno - 1]:
            indent = re.match(r"\s*", lines[node.lineno - 1]).group()
            for n in range(node.lineno - 1, node.end_lineno):
                lines[n] = indent + "pass" if n == node.lineno - 1 else ""
    return "\n".join(lines)


def chapter_imports(places, names):
    """[(chapter, cell id, imported module, its chapter)] for the chapters' cells that are not
    exported and import a module of a chapter with a higher number than their own, without
    saying so (`# ahead:` on the import's line)."""
    bad = []
    for doc, key in book_notebooks().items():
        for source, cell_id in code_cells(doc):
            if exported(source):
                continue
            for module in imported_modules(without_announced_imports(python_source(source)), names):
                if module in places and places[module][0] > key:
                    bad.append((doc, cell_id, module, places[module][1]))
    return sorted(bad)


def test_every_module_has_a_chapter_in_the_book():
    places = module_chapters()
    assert set(package_imports()) == set(places), "a module no chapter of _toc.yml exports, or the reverse"


def test_every_exporting_chapter_has_a_number():
    "The order rests on the titles' numbers: a chapter that exports a module must have one (the index excepted)."
    unnumbered = [doc for m, (key, doc) in module_chapters().items() if key == LAST and m != "__init__"]
    assert not unnumbered, f"chapters whose title has no number: {unnumbered}"


def test_imports_follow_the_chapters():
    places = module_chapters()
    bad = forward_imports(places, package_imports())
    assert not bad, "imports that go to a later chapter: " + ", ".join(
        f"{m} ({places[m][1]}) imports {i} ({places[i][1]})" for m, i in bad
    )


def test_chapters_code_imports_follow_the_chapters():
    bad = chapter_imports(module_chapters(), package_names())
    assert not bad, "chapter code that imports a later chapter's module: " + "; ".join(
        f"{doc}, cell {cell}: transformer.{m} ({where})" for doc, cell, m, where in bad
    )


def test_part_one_modules_import_only_part_one():
    "The lessons' package stands alone: no module of Part I imports one of Part II (issue 48)."
    part_of = {doc: caption for caption, docs in toc_parts(ROOT) for doc in docs}
    places = module_chapters()
    part_one = {m for m, (_, doc) in places.items() if part_of.get(doc) == PART_I}
    assert {"attention", "model", "data", "translate"} <= part_one
    bad = {
        m: sorted(i for i in used if i in places and i not in part_one)
        for m, used in package_imports().items()
        if m in part_one
    }
    assert not any(bad.values()), f"Part I modules importing Part II: {bad}"


def test_the_books_order_is_the_order_of_the_numbers():
    "Reading the book front to back meets the chapters in the order of their numbers."
    keys = [key for key in book_notebooks().values() if key != LAST]
    assert keys == sorted(keys), keys


def test_the_check_finds_a_forward_import():
    places = {
        "training": ((7,), "chapters/07_training"),
        "loop": ((12,), "chapters/24_loop"),
        "checkpoint": ((7, 1), "chapters/14_checkpoints"),
        "translate": ((10,), "chapters/10_translation"),
    }
    source = "from .training import make_batch\ndef f():\n    from transformer.loop import train\n"
    assert imported_modules(source) == {"training", "loop"}
    assert forward_imports(places, {"training": imported_modules(source)}) == [("training", "loop")]
    assert forward_imports(places, {"loop": {"training"}}) == []
    assert imported_modules("import transformer.loop as l\nfrom . import data") == {"loop", "data"}
    # by number, not by place in the toc: 10 may import 7.1, 7.1 may not import 10, 7 not 7.1
    assert forward_imports(places, {"translate": {"checkpoint"}}) == []
    assert forward_imports(places, {"checkpoint": {"translate"}}) == [("checkpoint", "translate")]
    assert forward_imports(places, {"training": {"checkpoint"}}) == [("training", "checkpoint")]
    # a name of the package resolves to its module
    assert imported_modules("from transformer import Transformer", {"Transformer": "model"}) == {"model"}


def test_an_announced_forward_import_is_allowed_and_only_it():
    source = (
        "from transformer.shipped import load_translator  # ahead: 10.2's shipped folder\n"
        "from transformer.cli import (train_main,\n    translate_main)\n"
    )
    assert imported_modules(without_announced_imports(source)) == {"cli"}
    announced = "if True:\n    from transformer.loop import (train,  # ahead: chapter 12\n        x)\n"
    assert imported_modules(without_announced_imports(announced)) == set()


def test_number_key_orders_chapters_by_number():
    keys = [number_key(n) for n in ["0", "7", "7.1", "9.1", "10", "10.4", "12.1", "13", None]]
    assert keys == sorted(keys)
    assert number_key("10") > number_key("7.1") > number_key("7")


def module_table():
    "Lines, chapter and package imports of every module (printed by `python tests/test_imports.py`)."
    places, imports = module_chapters(), package_imports()
    where = lambda m: places.get(m, (LAST, "(not in _toc.yml)"))
    rows = sorted((where(m)[0], m) for m in imports)
    return [
        (
            m,
            len((ROOT / "transformer" / f"{m}.py").read_text().splitlines()),
            where(m)[1].split("/")[-1],
            sorted(imports[m], key=lambda i: where(i)[0]),
        )
        for _, m in rows
    ]


if __name__ == "__main__":
    print("| module | lines | chapter | imports |\n| --- | --- | --- | --- |")
    for m, n, chapter, used in module_table():
        print(f"| `{m}` | {n} | {chapter} | {', '.join(used) or '-'} |")
    print("\nchapter code importing a later chapter's module:")
    for doc, cell, m, where in chapter_imports(module_chapters(), package_names()):
        print(f"  {doc}, cell {cell}: transformer.{m} ({where})")
