"""Build the book (`make site`, `make book`) and stamp the build with everything it was made from.

    python tools/book_build.py [--reuse] [jupyter-book flags]

A build: remove the stamp and the earlier build's pages, execute every chapter into the
jupyter-cache (tools/book_execute.py), then `jupyter-book build . FLAGS`; all of it is printed
and written to _build/book.log. When both succeed, the inputs are read again and, when nothing
changed while the build ran, _build/book.stamp.json records them together with a digest of what
the build wrote (_build/html, _build/.jupyter_cache, _build/book.log).

The inputs (`inputs()`) are everything that can change the book:
- every file of the repository, by content (chapters, the package, transformer_course, tools,
  _config.yml, _toc.yml, models, results, runs, exercises, the Makefile, MathJax in .cache, ...),
  except the folders that nothing in the build reads: .git, _build, tests, .scratch, grades,
  caches of Python and pytest, and virtual environments (which count below);
- the Python environment that builds: Python's version and executable, every installed
  distribution with its version, and the size and modification time of every file under
  sys.prefix (byte-code caches excepted);
- the Multi30k files the chapters read ($MULTI30K_DIR, else the package's download cache), by
  content;
- the environment variables the chapters, the package or the build read (`ENV_NAMES`,
  `ENV_PREFIXES`), OMP_NUM_THREADS as the chapters get it, and the machine (CPU, cores, OS);
- the user's and the system's settings for IPython, Jupyter and matplotlib (startup files,
  configuration, kernel specs, matplotlibrc);
- the jupyter-book flags.

`--reuse` (what tests/test_book.py asks for): when the stamp records exactly the inputs of now,
and what the build wrote is unchanged since, print why and exit 0 without building; otherwise
print what differs and build. A clean checkout has no stamp, so it always builds. The first
line printed starts with "book: reused" or "book: building".
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = "_build"
STAMP = f"{BUILD}/book.stamp.json"
LOG = f"{BUILD}/book.log"
# what the build writes and the tests read; removed before a build (the jupyter-cache is
# emptied by tools/book_execute.py)
OUTPUTS = (f"{BUILD}/html", f"{BUILD}/.jupyter_cache", LOG)
CLEAN = (f"{BUILD}/html", f"{BUILD}/jupyter_execute", f"{BUILD}/.doctrees", LOG)
# folders that no chapter and no step of the build reads: at the top of the repository, and
# anywhere in it
SKIP_TOP = {".git", BUILD, "tests", ".scratch", "grades"}
SKIP_ANY = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
# environment variables that reach the chapters' results (BOOK_JOBS only sets how many
# chapters run at once, and OMP_NUM_THREADS is recorded as the chapters get it)
ENV_NAMES = {"HOME", "LANG", "TZ", "IN_TEST", "RANK", "LOCAL_RANK", "WORLD_SIZE",
             "LOCAL_WORLD_SIZE", "SOURCE_DATE_EPOCH", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
             "XDG_DATA_HOME", "CUBLAS_WORKSPACE_CONFIG"}
ENV_PREFIXES = ("BOOK_", "TRANSFORMER_", "MULTI30K", "OMP_", "MKL_", "OPENBLAS_", "KMP_",
                "GOMP_", "ATEN_", "TORCH", "PYTORCH_", "CUDA_", "NVIDIA_", "PYTHON", "JUPYTER",
                "IPYTHON", "MPL", "MATPLOTLIB", "PLOTLY", "TOKENIZERS", "HF_", "LC_", "SPHINX",
                "MASTER_")
ENV_IGNORED = {"BOOK_JOBS", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _entry(path: Path) -> str:
    "A file by content (a symbolic link by its target)."
    return "link:" + os.readlink(path) if path.is_symlink() else sha256(path)


def repository_files(root: Path = ROOT) -> dict[str, str]:
    "{path relative to root: sha256} of every file the build may read (see SKIP_TOP, SKIP_ANY)."
    files, root = {}, Path(root)
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_ANY
                         and not (here == root and d in SKIP_TOP)
                         and not (here / d / "pyvenv.cfg").is_file())   # a virtual environment
        for name in names:
            path = here / name
            if name.endswith((".pyc", ".pyo")) or not (path.is_file() or path.is_symlink()):
                continue
            files[path.relative_to(root).as_posix()] = _entry(path)
    return dict(sorted(files.items()))


def python_environment() -> dict:
    "The interpreter, the installed distributions, and a digest of every file of the environment."
    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()
                    if d.metadata["Name"]})
    h = hashlib.sha256()
    for folder, dirs, names in os.walk(sys.prefix):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            rel = os.path.relpath(os.path.join(folder, name), sys.prefix)
            h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    exe = Path(sys.executable).resolve()
    return {"python": sys.version, "executable": str(exe), "prefix": sys.prefix,
            "executable_size": exe.stat().st_size, "distributions": dists,
            "prefix_files": h.hexdigest()}


def data_files(env: dict) -> dict:
    "The Multi30k files the chapters read: $MULTI30K_DIR, else the package's download cache."
    given = env.get("MULTI30K_DIR")
    if given:
        folder = Path(given).expanduser()
    else:
        cache = Path(env.get("XDG_CACHE_HOME") or Path(env.get("HOME") or Path.home()) / ".cache")
        folder = cache / "transformer" / "multi30k"
    files = {}
    if folder.is_dir():
        files = {p.name: sha256(p) for p in sorted(folder.iterdir()) if p.is_file()}
    return {"folder": str(folder.resolve() if folder.exists() else folder), "files": files}


def user_configuration(env: dict) -> dict:
    """{path: sha256} of the per-user and system settings that kernels and figures read: IPython's
    startup files and configuration, Jupyter's configuration and kernel specs, matplotlib's
    matplotlibrc and styles (not their histories, runtime files or caches)."""
    home = Path(env.get("HOME") or Path.home())
    ipython = Path(env.get("IPYTHONDIR") or home / ".ipython")
    jupyter = Path(env.get("JUPYTER_CONFIG_DIR") or home / ".jupyter")
    data = Path(env.get("JUPYTER_DATA_DIR") or Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
                / "jupyter")
    mpl = Path(env.get("MPLCONFIGDIR") or Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib")
    patterns = [(ipython, "profile_*/startup/*"), (ipython, "profile_*/*.py"), (jupyter, "*.py"),
                (jupyter, "*.json"), (data, "kernels/**/*"), (mpl, "matplotlibrc"), (mpl, "stylelib/*"),
                (Path("/etc/jupyter"), "**/*"), (Path("/etc/ipython"), "**/*"),
                (Path("/usr/local/share/jupyter"), "kernels/**/*"),
                (Path("/usr/share/jupyter"), "kernels/**/*"),
                (Path("/etc"), "matplotlibrc")]
    found = {}
    for base, pattern in patterns:
        for path in sorted(base.glob(pattern)) if base.is_dir() else []:
            if path.is_file():
                found[str(path)] = sha256(path)
    return found


def environment_variables(env: dict) -> dict:
    return {k: v for k, v in sorted(env.items()) if k not in ENV_IGNORED
            and (k in ENV_NAMES or k.startswith(ENV_PREFIXES))}


def machine() -> dict:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"platform": platform.platform(), "cpu": model or platform.processor(),
            "cpu_count": os.cpu_count(), "cores": cores}


def inputs(root: Path = ROOT, flags=(), env=None) -> dict:
    "Everything the book is made from (module docstring)."
    env = dict(os.environ if env is None else env)
    return {"flags": list(flags), "environment": environment_variables(env),
            "machine": machine(), "python": python_environment(), "data": data_files(env),
            "settings": user_configuration(env), "files": repository_files(Path(root))}


def outputs_digest(root: Path = ROOT) -> str:
    "A digest of what the build wrote and the tests read (OUTPUTS), file by file."
    h = hashlib.sha256()
    for out in OUTPUTS:
        top = Path(root) / out
        paths = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        h.update(f"{out}\0{len(paths)}\n".encode())
        for p in paths:
            h.update(f"{p.relative_to(root).as_posix()}\0{sha256(p)}\n".encode())
    return h.hexdigest()


def differences(old: dict, new: dict, limit: int = 6) -> list[str]:
    "What differs between two inputs() records, in words (at most `limit` items)."
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                if a.get(k) != b.get(k):
                    what = "added" if k not in a else "removed" if k not in b else "changed"
                    out.append(f"{key}: {k} {what}")
        else:
            out.append(f"{key} changed")
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


def read_stamp(root: Path = ROOT) -> dict | None:
    try:
        return json.loads((Path(root) / STAMP).read_text())
    except (OSError, ValueError):
        return None


def reusable(root: Path = ROOT, flags=(), env=None) -> tuple[bool, str]:
    "(True, why) when _build holds a finished build of exactly today's inputs, else (False, why)."
    stamp = read_stamp(root)
    if stamp is None:
        return False, f"no stamp ({STAMP}): no finished build to reuse"
    now = inputs(root, flags, env)
    if stamp.get("inputs") != now:
        changed = differences(stamp.get("inputs") or {}, now)
        return False, "its inputs changed since: " + "; ".join(changed or ["stamp unreadable"])
    if stamp.get("outputs") != outputs_digest(root):
        return False, "what the build wrote (_build/html, the jupyter-cache or the log) changed since"
    return True, f"the build of {stamp.get('finished', '?')} was made from exactly these inputs"


def write_stamp(root: Path, record: dict, started: str) -> None:
    stamp = {"inputs": record, "outputs": outputs_digest(root), "started": started,
             "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    path = Path(root) / STAMP
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(stamp, indent=1) + "\n")
    tmp.replace(path)


def _run(cmd, cwd, log, out) -> int:
    "Run `cmd` in `cwd`, its output line by line to `out` and the log file."
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    for line in proc.stdout:
        out(line.rstrip("\n"))
        log.write(line)
        log.flush()
    return proc.wait()


def default_commands(flags) -> list[list[str]]:
    bindir = Path(sys.executable).parent
    return [[sys.executable, str(ROOT / "tools" / "book_execute.py")],
            [str(bindir / "jupyter-book"), "build", ".", *flags]]


def build(root: Path = ROOT, flags=(), reuse=False, commands=None, out=print) -> int:
    """Build the book (or, with `reuse`, keep the stamped build of the same inputs): the exit
    status of the first step that fails, else 0."""
    root = Path(root)
    # the OMP_NUM_THREADS the chapters will get (tools/book_execute.py's default), so that the
    # inputs record it whether it was set or not
    tools = str(Path(__file__).resolve().parent)
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import book_execute
    os.environ.setdefault("OMP_NUM_THREADS",
                          str(max(1, book_execute.cores() // book_execute.jobs())))
    if reuse:
        ok, why = reusable(root, flags)
        if ok:
            out(f"book: reused the existing build in {BUILD}/ ({why}); {STAMP}")
            return 0
        out(f"book: building ({why})")
    else:
        out("book: building")
    (root / STAMP).unlink(missing_ok=True)
    for path in CLEAN:
        p = root / path
        shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
    (root / BUILD).mkdir(exist_ok=True)
    started, before = time.strftime("%Y-%m-%d %H:%M:%S"), inputs(root, flags)
    with open(root / LOG, "w") as log:
        for cmd in commands or default_commands(flags):
            rc = _run(cmd, root, log, out)
            if rc:
                return rc
    after = inputs(root, flags)
    if after != before:
        out("book: no stamp written: its inputs changed while it was built ("
            + "; ".join(differences(before, after)) + "); the tests will build it again")
    else:
        write_stamp(root, before, started)
        out(f"book: stamped {STAMP}")
    return 0


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    reuse = "--reuse" in args
    flags = [a for a in args if a != "--reuse"]
    return build(ROOT, flags, reuse=reuse, out=lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
