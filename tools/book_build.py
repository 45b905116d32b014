"""Build the book (`make site`, `make book`), doing again only what changed since the last build.

    python tools/book_build.py [jupyter-book flags]

Two steps, printed and written to _build/book.log:
1. tools/book_execute.py executes the chapters whose outputs the jupyter-cache (_build/.jupyter_cache,
   kept between builds) does not hold: a chapter whose code cells changed, or whose inputs did
   (the course's modules it imports, models/, results/, runs/, the Multi30k files, the
   environment variables it reads, the installed distributions: see that script);
2. `jupyter-book build . FLAGS`: Sphinx's incremental build reads again only the pages whose
   source changed or whose chapter was just executed again (tools/book_execute.py is also the
   Sphinx extension that tells it), takes their outputs from the cache, and writes them.
Right after a build, the next one executes nothing and reads nothing again.

What Sphinx alone would miss, this script covers: a warning is printed only when its page is
read, and Sphinx does not see changes to the book's own extensions or to what is installed. So
the whole book is read again (from the cache: no chapter runs for it), after removing
_build/.doctrees, _build/html and _build/jupyter_execute, unless the last build succeeded with
the same settings (`settings()`: _config.yml except the chapters' measured seconds, _toc.yml, the
source of every extension of `local_extensions`, the flags, Python and the installed
distributions). _build/book.ok.json records the settings of the last build that succeeded; it is
removed when a build starts.

Nothing outside the repository and its Python environment decides what is done again (not the
machine, not ~/.ipython or other per-user settings); the Multi30k files count, by content, when
$MULTI30K_DIR names them. The first line printed starts with "book: "; so does the last, which
says how many chapters were executed and how many pages Sphinx read.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD = "_build"
LOG = f"{BUILD}/book.log"
OK = f"{BUILD}/book.ok.json"
# what a full reading of the book starts without
CLEAN = (f"{BUILD}/.doctrees", f"{BUILD}/html", f"{BUILD}/jupyter_execute")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def settings(root: Path = ROOT, flags=()) -> dict:
    "What decides how every page is read and written, besides its own source and outputs."
    root = Path(root)
    cfg_text = (root / "_config.yml").read_text() if (root / "_config.yml").is_file() else ""
    cfg = yaml.safe_load(cfg_text) or {}
    (cfg.get("execute") or {}).pop("book_execution_seconds", None)   # only orders the chapters
    extensions = {}
    for name, folder in sorted(((cfg.get("sphinx") or {}).get("local_extensions") or {}).items()):
        path = root / folder / f"{name}.py"
        extensions[f"{folder.rstrip('/')}/{name}.py"] = _sha(path.read_bytes()) if path.is_file() else None
    toc = root / "_toc.yml"
    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()
                    if d.metadata["Name"]})
    return {"flags": list(flags), "config": _sha(json.dumps(cfg, sort_keys=True, default=str).encode()),
            "toc": _sha(toc.read_bytes()) if toc.is_file() else None, "extensions": extensions,
            "python": sys.version.split()[0], "distributions": _sha("\n".join(dists).encode())}


def differences(old: dict, new: dict) -> list[str]:
    "What differs between two settings() records, in words."
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += [f"{k} changed" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        elif a != b:
            out.append(f"{key} changed")
    return out


def full_read_needed(root: Path, now: dict) -> str | None:
    "Why every page must be read again (None: Sphinx's incremental build is enough)."
    if not (Path(root) / BUILD / ".doctrees").is_dir():
        return "no earlier build"
    try:
        last = json.loads((Path(root) / OK).read_text())["settings"]
    except (OSError, ValueError, KeyError):
        return "the last build did not finish successfully"
    changed = differences(last, now)
    return "settings changed since the last build: " + ", ".join(changed) if changed else None


def _run(cmd, cwd, log, out) -> tuple[int, list[str]]:
    "Run `cmd` in `cwd`, its output line by line to `out` and the log file: (exit status, lines)."
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        out(lines[-1])
        log.write(line)
        log.flush()
    return proc.wait(), lines


def default_commands(flags, root: Path = ROOT) -> list[list[str]]:
    bindir = Path(sys.executable).parent
    return [[sys.executable, str(ROOT / "tools" / "book_execute.py"), str(root)],
            [str(bindir / "jupyter-book"), "build", ".", *flags]]


def summary(lines: list[str]) -> str:
    "What the build did, from its output: chapters executed, pages Sphinx read."
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in lines]
    executed = next((l for l in plain if l.startswith("executed ")), "no chapter executed")
    read = next((m.group(0) for l in plain
                 for m in [re.search(r"\d+ added, \d+ changed, \d+ removed", l)] if m), None)
    return executed + (f"; Sphinx: {read} pages" if read else "")


def build(root: Path = ROOT, flags=(), commands=None, out=print) -> int:
    "Build the book: the exit status of the first step that fails, else 0."
    root = Path(root)
    now = settings(root, flags)
    why = full_read_needed(root, now)
    if why:
        out(f"book: building, every page read again ({why})")
        for path in CLEAN:
            shutil.rmtree(root / path, ignore_errors=True)
    else:
        out("book: building what changed since the last build")
    (root / OK).unlink(missing_ok=True)
    (root / BUILD).mkdir(exist_ok=True)
    started, lines = time.strftime("%Y-%m-%d %H:%M:%S"), []
    with open(root / LOG, "w") as log:
        for cmd in commands or default_commands(flags, root):
            rc, more = _run(cmd, root, log, out)
            lines += more
            if rc:
                out(f"book: failed (exit status {rc}); {summary(lines)}")
                return rc
    (root / OK).write_text(json.dumps({"settings": now, "started": started,
                                       "finished": time.strftime("%Y-%m-%d %H:%M:%S")}, indent=1) + "\n")
    out(f"book: built; {summary(lines)}")
    return 0


def main(argv=None) -> int:
    flags = list(sys.argv[1:] if argv is None else argv)
    return build(ROOT, flags, out=lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
