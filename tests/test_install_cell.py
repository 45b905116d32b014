"""Each chapter's first code cell installs the course where the kernel lacks it (Colab's launch
button) and does nothing in a checkout. Tested offline: a fresh virtual environment that sees
the course's dependencies but not the course installs it from a local clone of this repository."""

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOC = (ROOT / "_toc.yml").read_text()
CHAPTERS = [p for p in sorted((ROOT / "chapters").glob("*.ipynb")) if f"chapters/{p.stem}" in TOC]


def install_cell(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first = next(c for c in cells if c["cell_type"] == "code")
    assert first.get("id") == "install0", f"{path.name}: the first code cell is not the install cell"
    assert "hide-input" in first["metadata"].get("tags", []), f"{path.name}: the install cell is not folded"
    return "".join(first["source"])


def test_every_chapter_starts_with_the_same_install_cell():
    sources = {install_cell(p) for p in CHAPTERS}
    assert len(CHAPTERS) > 15 and len(sources) == 1


def test_in_a_checkout_the_cell_does_nothing(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **kw: calls.append(a))
    exec(install_cell(CHAPTERS[0]), {})
    assert calls == []  # transformer is importable here: no pip


@pytest.mark.e2e
def test_in_a_kernel_without_the_course_the_cell_installs_it(tmp_path):
    clone = tmp_path / "course"
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse"], capture_output=True).returncode:
        pytest.skip("not a git checkout")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # the fresh environment sees this one's packages (torch, spacy, plotly ...) but not the course,
    # and uses its setuptools: the install runs without the network
    subprocess.run([python, "-m", "pip", "uninstall", "-q", "-y", "setuptools"], capture_output=True)
    target = subprocess.run(
        [python, "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(target, "course_dependencies.pth").write_text(site.getsitepackages()[0] + "\n")
    env = {
        **os.environ,
        "TRANSFORMER_COURSE": clone.as_uri(),
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
    }
    probe = "import importlib.util; print(importlib.util.find_spec('transformer') is None)"
    before = subprocess.run([python, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert before.stdout.strip() == "True", before.stderr  # the course is missing there
    script = install_cell(CHAPTERS[0]) + "\nimport transformer, transformer_course.figures\nprint(transformer.__file__)"
    r = subprocess.run([python, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().startswith(target)  # installed into the fresh venv
