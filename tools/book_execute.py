"""Execute the book's chapters into its jupyter-cache before the book is built: only those whose
outputs are out of date.

    python tools/book_execute.py [BOOK]   # then: jupyter-book build .   (`make book` runs both)

The book is built with `execute_notebooks: cache` (_config.yml): myst-nb takes every chapter's
outputs from the jupyter-cache in _build/.jupyter_cache, found by jupyter-cache's key for the
notebook, a hash of its code cells. The cache is kept from one build to the next. A chapter's
outputs also depend on what its code reads, so this script extends that key with the chapter's
inputs (`inputs()`), and keeps them in the data of the chapter's cache record:
- the modules of the course's packages (transformer/, transformer_course/) that the chapter
  imports, directly or through other modules, by content. They are found in the text of its code
  cells and of those modules: import statements, dotted names such as `transformer.cli` (which
  also covers `python -m transformer.cli` and code run in a subprocess), the package's console
  scripts (`transformer-train`), relative imports, and paths (`transformer/cli.py`). Importing a
  module imports its package's __init__.py; a call of `import_module(` or `__import__(` counts
  every module of the caller's package (of both packages, in a chapter);
- the repository's folders models/ and results/ (by content), and the Multi30k files, when the
  chapter or one of those modules names them: $MULTI30K_DIR by content; without it, the
  package's download cache, whose content the package's own code decides (data.py is then among
  the modules); runs/, where the reader's trainings write, when the chapter names it as a path;
- the environment variables named in that text as string literals ("BOOK_TRAIN_MINUTES"), by
  value; not those that only set speed or where things are (`ENV_IGNORED`);
- pyproject.toml, the `execute` settings of _config.yml that change a run (timeout,
  allow_errors), Python's version and every installed distribution with its version.
A chapter is executed when the cache has no record of its cells, or the record's inputs differ
from today's; the others are taken from the cache. Nothing else decides: not the machine, not
~/.ipython or other per-user settings, not the time.

The chapters to execute:
- run in `$BOOK_JOBS` processes (default: one per core), each executed the way
  jupyter-cache's `local-serial` executor does it (the chapter's folder as working directory, the
  `timeout` and `allow_errors` of _config.yml's `execute` section);
- start slowest first (`book_execution_seconds` in _config.yml's `execute`
  section, measured; a chapter not listed counts 10 s) and each process takes the next chapter
  when it is free, so the processes end at about the same time;
- each get their share of the cores as PyTorch threads (`OMP_NUM_THREADS`, unless set),
  and TRANSFORMER_FIGURES_SITE=1 (the figures leave plotly.js to the site, tools/book_figures.py).
Exit status 1 when a chapter fails: each failing chapter is reported with its traceback, after
all the others have run, and has no record in the cache. A record replaced by a newer version of
the same chapter is removed, so that the cache keeps one record per chapter.

This module is also a Sphinx extension (_config.yml, `local_extensions`): an executed chapter gets
a key file, _build/.jupyter_cache/book/<chapter>.json (its cells' hash and its inputs), and the
extension makes each page depend on its key file. Sphinx's incremental build then reads a page
again when its chapter was executed again, even when the notebook itself did not change.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import re
import sys
import sysconfig
import time
from importlib import metadata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from transformer_course.figures import SITE_ENV  # noqa: E402

DEFAULT_SECONDS = 10
# the course's own packages, whose modules the chapters import
PACKAGES = ("transformer", "transformer_course")
# a folder of the repository counts for a chapter that names it: the word, in its code or the
# modules it imports; runs/, where the reader's trainings write and the package reads only where
# it is told to, as a path ("runs/", '"runs"') in the chapter's own code
FOLDERS = {"models": "modules", "results": "modules", "runs": "chapter"}
# environment variables that set only speed, where data is (its content counts) or the build's
# own bookkeeping: they never make a chapter run again
ENV_IGNORED = {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BOOK_JOBS",
               "MULTI30K_DIR", "XDG_CACHE_HOME", "HOME", "PATH", "PWD", SITE_ENV}
ENV_IGNORED_PREFIXES = ("PYTEST_", "MAKE", "MFLAGS")
# files bigger than this (a checkpoint in runs/) count by size and modification time
BIG = 64 << 20


def cores() -> int:
    "The cores this process may run on."
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def jobs() -> int:
    "The number of chapters executed at once: $BOOK_JOBS, else the number of cores."
    value = os.environ.get("BOOK_JOBS", "").strip()
    if not value:
        return cores()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"BOOK_JOBS={value!r}: give a whole number of processes, 1 or more")
    return int(value)


def config(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_config.yml").read_text()) or {}


def cache_path(root: Path = ROOT) -> Path:
    "Where myst-nb looks for the cache: `execute.cache`, else _build/.jupyter_cache."
    path = (config(root).get("execute") or {}).get("cache") or "_build/.jupyter_cache"
    return (root / path).resolve()


def key_file(root: Path, doc: str) -> Path:
    "The file that says when chapter `doc` ('chapters/01_attention') was last executed."
    return cache_path(root) / "book" / f"{doc}.json"


def toc_docs(root: Path = ROOT) -> list[str]:
    "Document names listed in _toc.yml (root first), without suffix: 'chapters/01_attention'."
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    docs = [toc["root"]]

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                docs.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))
            for part in e.get("parts") or []:
                walk(part.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [str(Path(d).with_suffix("")) if Path(d).suffix in {".ipynb", ".md"} else d for d in docs]


def chapters(root: Path = ROOT) -> list[Path]:
    "The notebooks of _toc.yml (Markdown pages have nothing to execute)."
    paths = [root / f"{doc}.ipynb" for doc in toc_docs(root)]
    return [p for p in paths if p.is_file()]


def slowest_first(docs: list[str], seconds: dict) -> list[str]:
    "`docs` in the order to start them: the longest first (ties keep their order)."
    return sorted(docs, key=lambda d: -seconds.get(d, DEFAULT_SECONDS))


# ------------------------------------------------------------------ what a chapter reads
def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def folder_digest(folder: Path) -> str | None:
    "One digest of every file under `folder` (name and content; a big file by size and time), None if absent."
    if not folder.is_dir():
        return None
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts or ".ipynb_checkpoints" in path.parts:
            continue
        st = path.stat()
        what = f"{st.st_size}:{st.st_mtime_ns}" if st.st_size > BIG else sha256(path)
        h.update(f"{path.relative_to(folder).as_posix()}\0{what}\n".encode())
    return h.hexdigest()


def code_text(path: Path) -> str:
    "The code cells of a notebook, one after another."
    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    sources = [c.get("source") or "" for c in cells if c.get("cell_type") == "code"]
    return "\n".join(s if isinstance(s, str) else "".join(s) for s in sources)


class Sources:
    """The repository's modules and everything the chapters' keys share, read once per build."""

    def __init__(self, root: Path = ROOT, env=None):
        self.root = Path(root)
        self.env = dict(os.environ if env is None else env)
        self.modules = {}                 # dotted name -> path relative to root
        for package in PACKAGES:
            for path in sorted((self.root / package).rglob("*.py")) if (self.root / package).is_dir() else []:
                rel = path.relative_to(self.root)
                if "__pycache__" in rel.parts or ".ipynb_checkpoints" in rel.parts:
                    continue
                parts = list(rel.with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                self.modules[".".join(parts)] = rel.as_posix()
        self._text, self._digest, self._folders, self._refs = {}, {}, {}, {}
        self.scripts = console_scripts(self.root)
        pattern = "|".join(sorted(PACKAGES, key=len, reverse=True))
        self._dotted = re.compile(rf"(?<![\w.])({pattern})((?:\.\w+)+)")
        names = r"(\([^)]*\)|[^\n;#]*)"            # what `from X import` names: (a, b) or a, b to the end of the line
        self._imports = re.compile(rf"\bimport\s+({pattern})\b|\bfrom\s+({pattern})\s+import\s+{names}")
        self._path = re.compile(rf"(?<![\w.])((?:{pattern})(?:/\w+)*)\.py\b")
        self._relative = re.compile(rf"\bfrom\s+(\.+)([\w.]*)\s+import\s+{names}")
        self._script = re.compile("|".join(rf"(?<![\w-]){re.escape(s)}(?![\w-])" for s in self.scripts) or r"(?!x)x")
        self.shared = self._shared()

    def text(self, module: str) -> str:
        if module not in self._text:
            self._text[module] = (self.root / self.modules[module]).read_text(encoding="utf-8", errors="replace")
        return self._text[module]

    def digest(self, module: str) -> str:
        if module not in self._digest:
            self._digest[module] = sha256(self.root / self.modules[module])
        return self._digest[module]

    def _with_parents(self, dotted: str) -> set[str]:
        "The modules a dotted name imports: each of its prefixes that is a module ('a.b.c': a, a.b, a.b.c)."
        parts = dotted.split(".")
        return {".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.modules}

    def references(self, text: str, module: str | None = None) -> set[str]:
        "The modules that `text` (a chapter's code, or module `module`'s source) imports or names."
        found = set()
        if re.search(r"\bimport_module\(|\b__import__\(", text):     # a name computed at run time:
            top = module.split(".")[0] if module else None        # any module of its package (of all,
            found |= {m for m in self.modules if top in (None, m.split(".")[0])   # from a chapter)
                      and not m.endswith("._modidx")}                         # (nbdev's index: never imported)
        for m in self._dotted.finditer(text):
            found |= self._with_parents(m.group(1) + m.group(2))
        for m in self._imports.finditer(text):
            package = m.group(1) or m.group(2)
            found |= self._with_parents(package)
            for name in re.findall(r"\w+", m.group(3) or ""):
                found |= self._with_parents(f"{package}.{name}")
        for m in self._path.finditer(text):                  # a module read as a file
            found |= self._with_parents(m.group(1).replace("/", "."))
        for m in self._script.finditer(text):
            found |= self._with_parents(self.scripts[m.group(0)])
        if module is not None:
            is_package = self.modules[module].endswith("__init__.py")
            for m in self._relative.finditer(text):
                base = module.split(".")
                base = base[:len(base) - len(m.group(1)) + (1 if is_package else 0)]
                target = ".".join(base + ([m.group(2)] if m.group(2) else []))
                found |= self._with_parents(target)
                for name in re.findall(r"\w+", m.group(3)):
                    found |= self._with_parents(f"{target}.{name}")
        return found

    def closure(self, text: str) -> set[str]:
        "Every module that code `text` imports, directly or through other modules."
        todo, seen = list(self.references(text)), set()
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                if module not in self._refs:
                    self._refs[module] = self.references(self.text(module), module)
                todo.extend(self._refs[module] - seen)
        return seen

    def folder(self, name: str):
        if name not in self._folders:
            if name == "multi30k":
                given = self.env.get("MULTI30K_DIR")
                self._folders[name] = ({"MULTI30K_DIR": folder_digest(Path(given).expanduser())} if given
                                       else "the package's download cache (decided by its data module)")
            else:
                self._folders[name] = folder_digest(self.root / name)
        return self._folders[name]

    def _shared(self) -> dict:
        "What every chapter's key holds: the project's settings and the Python environment."
        pyproject = self.root / "pyproject.toml"
        execute = {k: v for k, v in (config(self.root).get("execute") or {}).items()
                   if k not in ("book_execution_seconds", "cache")}
        dists = installed_distributions()
        return {"pyproject.toml": sha256(pyproject) if pyproject.is_file() else None,
                "execute": execute, "python": sys.version.split()[0],
                "distributions": hashlib.sha256("\n".join(dists).encode()).hexdigest()}

    def environment(self, text: str) -> dict:
        "The variables named in `text` as string literals that are set, with their values."
        names = set(re.findall(r"[\"']([A-Z][A-Z0-9_]{2,})[\"']", text))
        return {n: self.env[n] for n in sorted(names) if n in self.env
                and n not in ENV_IGNORED and not n.startswith(ENV_IGNORED_PREFIXES)}


def installed_distributions() -> list[str]:
    """'name==version' of every distribution installed in this interpreter's environment (its
    site-packages folders): the same list in every process of the environment, whatever its
    sys.path (a test's temporary folders, the working directory) holds."""
    folders = sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")})
    return sorted({f"{d.metadata['Name']}=={d.version}"
                   for d in metadata.distributions(path=folders) if d.metadata["Name"]})


def console_scripts(root: Path) -> dict[str, str]:
    "{command: module} of pyproject.toml's [project.scripts] ('transformer-train': 'transformer.cli')."
    path = Path(root) / "pyproject.toml"
    scripts, inside = {}, False
    for line in path.read_text().splitlines() if path.is_file() else []:
        if line.startswith("["):
            inside = line.strip() == "[project.scripts]"
        elif inside and (m := re.match(r"\s*([\w.-]+)\s*=\s*[\"']([\w.]+)", line)):
            scripts[m.group(1)] = m.group(2)
    return scripts


def inputs(notebook: Path, sources: Sources) -> dict:
    "What chapter `notebook` reads, besides its cells (module docstring): the extension of its key."
    code = code_text(notebook)
    modules = sources.closure(code)
    text = "\n".join([code] + [sources.text(m) for m in sorted(modules)])
    folders = {f"{name}/": sources.folder(name) for name, where in FOLDERS.items()
               if (re.search(rf"\b{name}\b", text) if where == "modules"
                   else re.search(rf"[\"'/]{name}\b|\b{name}[/\"']", code))}
    if re.search(r"multi30k", text, re.IGNORECASE):
        folders["multi30k"] = sources.folder("multi30k")
    return {"modules": {sources.modules[m]: sources.digest(m) for m in sorted(modules)},
            "data": folders, "environment": sources.environment(text), **sources.shared}


def differences(old: dict, new: dict, limit: int = 4) -> list[str]:
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
                    out.append(f"{k} {what}" if key in ("modules", "data") else f"{key} {k} {what}")
        else:
            out.append(f"{key} changed")
    return out[:limit] + ([f"{len(out) - limit} more"] if len(out) > limit else [])


def plan(root: Path = ROOT, cache=None, sources: Sources | None = None) -> dict:
    """{doc: (notebook, hash of its cells, inputs, why it must run or None)} for every chapter of
    _toc.yml, `why` None when the cache holds its outputs for these cells and these inputs."""
    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbCacheRecord
    import nbformat

    root = Path(root).resolve()
    cache = cache or get_cache(str(cache_path(root)))
    sources = sources or Sources(root)
    out = {}
    for path in chapters(root):
        doc = path.relative_to(root).with_suffix("").as_posix()
        _, hashkey = cache.create_hashed_notebook(nbformat.read(str(path), as_version=4))
        now = inputs(path, sources)
        try:
            record = NbCacheRecord.record_from_hashkey(hashkey, cache.db)
        except KeyError:
            why = "not in the cache"
        else:
            old = (record.data or {}).get("inputs")
            why = (None if old == now else "no inputs recorded" if old is None
                   else "changed: " + ", ".join(differences(old, now)))
        out[doc] = (path, hashkey, now, why)
    return out


def _execute_one(cache_dir: str, uri: str, timeout, allow_errors, inputs_now: dict):
    """In a worker process: execute one notebook as jupyter-cache's `local-serial` executor does
    (in its folder), and cache it with its inputs. (uri, traceback or None, seconds)."""
    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbProjectRecord
    from jupyter_cache.executors.utils import create_cache_bundle, single_nb_execution

    cache = get_cache(cache_dir)
    project_nb = cache.get_project_notebook(uri)
    NbProjectRecord.remove_tracebacks([project_nb.pk], cache.db)
    result = single_nb_execution(project_nb.nb, cwd=str(Path(uri).parent), timeout=timeout,
                                 allow_errors=allow_errors)
    if result.err:
        NbProjectRecord.set_traceback(uri, result.exc_string, cache.db)
        return uri, result.exc_string or repr(result.err), result.time
    bundle = create_cache_bundle(project_nb, result.cwd, None, result.time, None)
    bundle.data["inputs"] = inputs_now
    cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
    return uri, None, result.time


def execute(root: Path = ROOT, nproc: int | None = None, out=print) -> int:
    """Execute, in `nproc` processes, every chapter whose outputs the cache does not hold for its
    cells and inputs; 0 when all ran, 1 when one or more failed (each reported with its traceback)."""
    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbCacheRecord

    root = Path(root).resolve()
    nproc = nproc or jobs()
    execute_cfg = config(root).get("execute") or {}
    seconds = execute_cfg.get("book_execution_seconds") or {}
    timeout = execute_cfg.get("timeout", 30)
    allow_errors = bool(execute_cfg.get("allow_errors", False))
    if execute_cfg.get("run_in_temp"):
        raise ValueError("run_in_temp: true is not supported: chapters run in their own folder")
    os.environ[SITE_ENV] = "1"                       # the kernels inherit the environment
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, cores() // nproc)))

    cache_dir = cache_path(root)
    cache = get_cache(str(cache_dir))
    todo = plan(root, cache)
    for path, *_ in todo.values():
        cache.add_nb_to_project(str(path))
    stale = {doc: entry for doc, entry in todo.items() if entry[3] is not None}
    order = slowest_first(list(stale), seconds)
    for doc in order:
        out(f"{doc}: executing ({stale[doc][3]})")
        try:                                         # a failing chapter leaves no outdated record
            cache.remove_cache(NbCacheRecord.record_from_hashkey(stale[doc][1], cache.db).pk)
        except KeyError:
            pass
    out(f"executing {len(order)} of {len(todo)} chapters in {nproc} processes "
        f"(OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}) into {cache_dir}; "
        f"{len(todo) - len(order)} taken from the cache")
    start, failed, took = time.monotonic(), {}, {}
    if order:
        # a process takes the next chapter of `order` as soon as it is free
        with concurrent.futures.ProcessPoolExecutor(max_workers=min(nproc, len(order))) as pool:
            futures = {doc: pool.submit(_execute_one, str(cache_dir), str(stale[doc][0]), timeout,
                                        allow_errors, stale[doc][2]) for doc in order}
            for doc, future in futures.items():
                try:
                    _, error, took[doc] = future.result()
                except Exception as e:                # the worker itself broke
                    error = f"could not execute the chapter: {e!r}"
                if error:
                    failed[doc] = error
                else:
                    write_key_file(root, doc, stale[doc][1], stale[doc][2])
    prune(cache, {str(path): hashkey for path, hashkey, *_ in todo.values()})
    for doc, error in failed.items():
        out(f"{doc}.ipynb: ERROR: executing the chapter failed (a cell raised or timed out):")
        out(error.rstrip())
    out(f"executed {len(order) - len(failed)} of the {len(order)} chapters to run in {nproc} processes "
        f"in {time.monotonic() - start:.0f} s ({len(todo) - len(order)} of the book's {len(todo)} "
        "taken from the cache)"
        + ("; seconds each: " + ", ".join(f"{d.split('/')[-1]} {t:.0f}" for d, t in took.items())
           if took else ""))
    return 1 if failed else 0


def write_key_file(root: Path, doc: str, hashkey: str, inputs_now: dict) -> None:
    path = key_file(root, doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hashkey": hashkey, "inputs": inputs_now}, indent=1) + "\n")


def prune(cache, current: dict[str, str]) -> None:
    "Remove the records of earlier versions of the chapters (`current`: {uri: hash of today's cells})."
    from jupyter_cache.cache.db import NbCacheRecord
    for record in NbCacheRecord.records_all(cache.db):
        if record.uri in current and record.hashkey != current[record.uri]:
            cache.remove_cache(record.pk)


# ------------------------------------------------------------------ the Sphinx extension
def _note_key_file(app, docname, source):
    "Sphinx reads the page again when its key file is newer than its last reading."
    path = key_file(Path(app.srcdir), docname)
    if path.is_file():
        app.env.note_dependency(str(path))


def setup(app):
    app.connect("source-read", _note_key_file)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)          # [the book's folder]
    return execute(Path(args[0]) if args else ROOT, out=lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
