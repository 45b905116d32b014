"""The course installs two top-level names only: `transformer` (the library) and
`transformer_course` (its grader and figure helpers). Generic names such as `grader` or `figures`
would shadow a learner's own modules of that name, or be shadowed by them."""

import json
import os
import subprocess
import sys
from pathlib import Path

from setuptools import find_packages

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = {"transformer", "transformer_course"}
GENERIC = ("grader", "figures")
COURSE = ("transformer_course.grader", "transformer_course.grader.questions", "transformer_course.figures")

# Run from a folder outside the repository: what the installed distribution alone puts on the path.
PROBE = f"""
import importlib, importlib.metadata as md, importlib.util, json, sys
out = {{"generic": {{}}, "course": {{}}}}
for name in {GENERIC!r}:
    spec = importlib.util.find_spec(name)
    out["generic"][name] = {{"origin": spec and (spec.origin or str(list(spec.submodule_search_locations))),
                            "dists": md.packages_distributions().get(name, [])}}
for name in {COURSE!r}:
    out["course"][name] = importlib.import_module(name).__file__
out["top_level"] = (md.distribution("transformer").read_text("top_level.txt") or "").split()
print(json.dumps(out))
"""


def probe(python=sys.executable, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(python), "-c", PROBE], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def test_the_configuration_packages_two_top_level_names_and_their_subpackages():
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = set(find_packages(where=str(ROOT), include=include))
    assert {p.split(".")[0] for p in packages} == TOP_LEVEL, sorted(packages)
    assert set(COURSE) <= packages, f"missing from a (non-editable) install: {set(COURSE) - packages}"


def test_the_installed_course_puts_no_grader_or_figures_on_the_path(tmp_path):
    out = probe(cwd=tmp_path)
    assert set(out["top_level"]) <= TOP_LEVEL, f"installed top-level names: {out['top_level']}"
    for name, found in out["generic"].items():
        # another distribution's module of that name is not ours to judge; ours must not be one
        assert "transformer" not in found["dists"], f"`import {name}` finds the course's {found['origin']}"
        assert found["origin"] is None or not found["origin"].startswith(str(ROOT)), (
            f"`import {name}` finds the repository's {found['origin']}"
        )
    assert set(out["course"]) == set(COURSE)


def test_a_learners_own_grader_and_figures_leave_the_course_working(tmp_path):
    (tmp_path / "grader.py").write_text("MINE = 'grader'\n")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "__init__.py").write_text("MINE = 'figures'\n")
    script = (
        "import grader, figures\n"
        "from transformer_course.grader.grade import grade\n"
        "from transformer_course.figures import interactive\n"
        "print(grader.MINE, figures.MINE)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["grader", "figures"]
