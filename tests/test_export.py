"""The package is generated from the chapters: re-exporting must not change it."""

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_package_matches_chapters(tmp_path):
    for name in ["pyproject.toml", "README.md"]:
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "chapters", tmp_path / "chapters")
    exporter = Path(sys.executable).parent / "nbdev-export"
    subprocess.run([str(exporter)], cwd=tmp_path, check=True, capture_output=True)
    fresh, committed = tmp_path / "transformer", ROOT / "transformer"
    fresh_files = sorted(p.name for p in fresh.glob("*.py"))
    committed_files = sorted(p.name for p in committed.glob("*.py"))
    assert fresh_files == committed_files, "run `make export`: the set of modules differs"
    stale = [n for n in fresh_files if not filecmp.cmp(fresh / n, committed / n, shallow=False)]
    assert not stale, f"transformer/ is out of date with chapters/ (run `make export`): {stale}"
