"""environment.yml (conda) installs the same dependencies as pyproject.toml (.venv)."""

import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# Conda packages that are tools, not Python dependencies of the package.
CONDA_TOOLS = {"python", "pip", "nodejs"}


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def environment():
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def requirements(lines):
    "{canonical name: specifier set} of PEP 508 lines (no duplicates allowed)."
    out = {}
    for line in lines:
        r = Requirement(line)
        name = canonicalize_name(r.name)
        assert name not in out, f"{name} listed twice"
        out[name] = (r.specifier, r.marker, frozenset(r.extras))
    return out


def conda_split():
    "(conda specs by name, pip lines) of environment.yml."
    conda, pip = {}, []
    for dep in environment()["dependencies"]:
        if isinstance(dep, dict):
            pip += [l for l in dep["pip"] if not l.startswith("-")]  # skip `-e .`
        else:
            name = dep.split("=")[0].split(">")[0].split("<")[0].strip()
            conda[name] = dep
    return conda, pip


def test_pip_section_equals_pyproject():
    project = pyproject()["project"]
    wanted = requirements(project["dependencies"] + project["optional-dependencies"]["dev"])
    _, pip = conda_split()
    got = requirements(pip)
    missing = sorted(set(wanted) - set(got))
    extra = sorted(set(got) - set(wanted))
    assert not missing and not extra, f"environment.yml lacks {missing}, has extra {extra}"
    differ = {n: (str(wanted[n][0]), str(got[n][0])) for n in wanted if wanted[n] != got[n]}
    assert not differ, f"version specifiers differ (pyproject, environment.yml): {differ}"


def test_conda_section_is_only_tools():
    conda, _ = conda_split()
    assert set(conda) <= CONDA_TOOLS, f"put Python dependencies in pyproject.toml: {set(conda) - CONDA_TOOLS}"
    assert {"python", "pip"} <= set(conda)


def test_python_version_meets_requires_python():
    conda, _ = conda_split()
    version = conda["python"].split("=")[-1]
    requires = SpecifierSet(pyproject()["project"]["requires-python"])
    assert Version(version) in requires, f"python={version} does not meet {requires}"


def test_environment_installs_the_package():
    env = environment()
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip
