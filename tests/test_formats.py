"""Every on-disk format is named in one module (issue 43): its file names and its version live there,
and every other module and tool asks that module for them.

- the checkpoint and the run folder (`checkpoint.pt`, `snapshots`, `averaged.pt`, `metrics.jsonl`):
  `transformer/checkpoint.py` (`Checkpoint`, `FORMAT`, `RunFolder`);
- the model folder (`model.safetensors`, `config.json`, `tokenizer.json`, `card.json`,
  `tokenizer.target.json`): `transformer/shipped.py` (`MODEL_FILES`, `MODEL_FORMAT`);
- the ONNX folder's `onnx.json`: `transformer/onnx_export.py` (`ONNX_FORMAT`, its reader and writer),
  mirrored by the page's JavaScript, which checks the version.

The check reads each module's string constants (docstrings and prose with spaces left out), so a
name spelt out again anywhere else fails it.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*(ROOT / "transformer").glob("*.py"), *(ROOT / "tools").rglob("*.py")])
SOURCES = [p for p in SOURCES if p.name != "_modidx.py"]

FORMATS = {
    "checkpoint.py": ["checkpoint.pt", "snapshots", "averaged.pt", "metrics.jsonl"],
    "shipped.py": [
        "model.safetensors",
        "config.json",
        "tokenizer.json",
        "card.json",
        "tokenizer.target.json",
    ],
    "onnx_export.py": ["onnx.json"],
}


def names_in(path):
    """The string constants of a module that are file names or end in one after a '/': no spaces
    (so not prose), not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value.rsplit("/", 1)[-1]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and " " not in node.value
    }


@pytest.mark.parametrize("owner", FORMATS)
def test_each_format_is_named_in_its_own_module_only(owner):
    found = {p.relative_to(ROOT).as_posix(): names_in(p) for p in SOURCES}  # tools/ has sub-folders
    assert set(FORMATS[owner]) <= found[f"transformer/{owner}"], f"{owner} no longer names its files"
    elsewhere = {
        (p, name)
        for p, names in found.items()
        if p != f"transformer/{owner}"
        for name in FORMATS[owner]
        if name in names
    }
    assert not elsewhere, f"file names of {owner}'s format spelt out elsewhere: {sorted(elsewhere)}"


def test_the_check_finds_a_name_spelt_out_elsewhere(tmp_path):
    "The check itself: a module that writes a run's checkpoint by name is found; prose is not."
    bad = tmp_path / "bad.py"
    bad.write_text('"""Writes checkpoint.pt."""\nPATH = "runs/x/checkpoint.pt"\nHELP = "see the checkpoint.pt file"\n')
    assert names_in(bad) == {"checkpoint.pt"}
    bad.write_text('"""Writes checkpoint.pt."""\nHELP = "see the checkpoint.pt file"\n')
    assert names_in(bad) == set()


def test_each_format_has_a_version_defined_once():
    versions = {"checkpoint.py": "FORMAT", "shipped.py": "MODEL_FORMAT", "onnx_export.py": "ONNX_FORMAT"}
    for owner, constant in versions.items():
        defined = [
            p.name
            for p in SOURCES
            if any(
                isinstance(n, ast.Assign) and any(getattr(t, "id", None) == constant for t in n.targets)
                for n in ast.parse(p.read_text(encoding="utf-8")).body
            )
        ]
        assert defined == [owner], (constant, defined)
