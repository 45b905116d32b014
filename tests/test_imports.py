"""The package follows the book: a module exported by a chapter imports only modules of chapters that come before
it (or itself) in _toc.yml's order."""
import ast
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def book_order():
    "The chapters' files in the order the book shows them (_toc.yml: root, chapters, their sections)."
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    order = [toc["root"]]
    for chapter in toc["chapters"]:
        order.append(chapter["file"])
        order += [s["file"] for s in chapter.get("sections", [])]
    return order


def module_chapters():
    "{module name: its chapter's place in the book}, from each notebook's `#| default_exp`."
    places = {}
    for place, name in enumerate(book_order()):
        path = ROOT / f"{name}.ipynb"
        if not path.exists(): continue
        for cell in json.loads(path.read_text())["cells"]:
            found = re.search(r"#\|\s*default_exp\s+(\S+)", "".join(cell["source"]))
            if found and cell["cell_type"] == "code":
                places[found.group(1)] = (place, name)
    return places


def imported_modules(source):
    "The package's modules that `source` imports, anywhere in it (functions included)."
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module: found.add(node.module.split(".")[0])
            elif node.level == 1: found.update(a.name for a in node.names)
            elif node.module and node.module.split(".")[0] == "transformer":
                parts = node.module.split(".")
                if len(parts) > 1: found.add(parts[1])
                else: found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("transformer."))
    return found


def forward_imports(places, imports):
    "(module, imported module) pairs whose import goes forward in the book."
    return sorted((m, i) for m, used in imports.items() for i in used
                  if i in places and places[i][0] > places[m][0])


def package_imports():
    return {p.stem: imported_modules(p.read_text()) for p in (ROOT / "transformer").glob("*.py")
            if p.stem != "_modidx"}


def test_every_module_has_a_chapter_in_the_book():
    places = module_chapters()
    assert set(package_imports()) == set(places), "a module no chapter of _toc.yml exports, or the reverse"


def test_imports_follow_the_chapters():
    places = module_chapters()
    bad = forward_imports(places, package_imports())
    assert not bad, "imports that go forward in the book: " + ", ".join(
        f"{m} ({places[m][1]}) imports {i} ({places[i][1]})" for m, i in bad)


def test_the_check_finds_a_forward_import():
    places = {"training": (8, "chapters/07_training"), "loop": (20, "chapters/12_loop")}
    source = "from .training import make_batch\ndef f():\n    from transformer.loop import train\n"
    assert imported_modules(source) == {"training", "loop"}
    assert forward_imports(places, {"training": imported_modules(source)}) == [("training", "loop")]
    assert forward_imports(places, {"loop": {"training"}}) == []
    assert imported_modules("import transformer.loop as l\nfrom . import data") == {"loop", "data"}


def module_table():
    "Lines, chapter and package imports of every module (printed by `python tests/test_imports.py`)."
    places, imports = module_chapters(), package_imports()
    rows = sorted((places[m][0], m) for m in imports)
    return [(m, len((ROOT / "transformer" / f"{m}.py").read_text().splitlines()), places[m][1].split("/")[-1],
             sorted(imports[m], key=lambda i: places.get(i, (99,))[0])) for _, m in rows]


if __name__ == "__main__":
    print("| module | lines | chapter | imports |\n| --- | --- | --- | --- |")
    for m, n, chapter, used in module_table():
        print(f"| `{m}` | {n} | {chapter} | {', '.join(used) or '-'} |")
