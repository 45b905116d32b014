"""Sphinx extension for the book: chapter 10's translator box, served by the site itself.

Chapter 10's page holds `<div id="tf-translator">`; tools/book/book_translator.js fills it with a box
that translates in the reader's browser. This extension
- adds `_static/translator/translator.js` (as a JavaScript module) to that page, and to no other;
- exports the shipped model with the course's own command, `transformer-export --onnx`
  (chapter 21: float32 and 8-bit graphs, checked against PyTorch on 100 test sentences), into
  _build/translator/: started when the build starts, in a process of its own (the build reads
  the pages on one core, the export uses the other), awaited when the HTML is written. The
  export is kept for the next build while what decides it is unchanged (`export_key`: the
  model folder and the package's code by content, the runtimes' versions, the settings that
  choose the model and the test data);
- then copies into the site's _static/translator/ what the page loads: the 8-bit graphs, tokenizer.json,
  onnx.json (read with the package's `read_onnx_spec`, which checks its format), the two scripts (the box, and
  tools/book/translator_input.mjs, chapter 10's check_source in JavaScript, which the box imports), and
  onnxruntime-web's WebAssembly runtime and Hugging Face's JavaScript tokenizers, which the Makefile
  installs from npm into .cache/translator-js (as MathJax: nothing is loaded from a CDN and nothing is
  committed).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the page's scripts, by their names in _static/translator/ (book_translator.js imports the second)
SCRIPTS = {
    "translator.js": ROOT / "tools" / "book" / "book_translator.js",
    "translator_input.mjs": ROOT / "tools" / "book" / "translator_input.mjs",
}
RUNTIME = ROOT / ".cache" / "translator-js" / "static"  # filled by `make translator-js`
RUNTIME_FILES = [
    "ort.wasm.min.mjs",
    "ort-wasm-simd-threaded.mjs",
    "ort-wasm-simd-threaded.wasm",
    "tokenizers.min.mjs",
    "LICENSE-tokenizers.txt",
    "VERSIONS.txt",
]
MARK = 'id="tf-translator"'
SITE_DIR = "translator"  # under _static/


def runtime_files() -> list[Path]:
    "The npm files the page needs, or a FileNotFoundError that says how to get them."
    missing = [name for name in RUNTIME_FILES if not (RUNTIME / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{RUNTIME / missing[0]} is missing: run `make translator-js` "
            "(`make book` does), which installs onnxruntime-web and "
            "@huggingface/tokenizers from npm"
        )
    return [RUNTIME / name for name in RUNTIME_FILES]


def export_key() -> dict:
    "What the export writes depends on: the model folder, the package's code, the runtimes, two settings."
    digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()
    model = Path(os.environ.get("TRANSFORMER_MODEL") or ROOT / "models" / "de-en-cpu")
    files = sorted(p for p in model.rglob("*") if p.is_file()) if model.is_dir() else []
    return {
        "model": {p.relative_to(model).as_posix(): digest(p) for p in files},
        "package": {p.name: digest(p) for p in sorted((ROOT / "transformer").glob("*.py")) if p.name != "_modidx.py"},
        "versions": {d: metadata.version(d) for d in ("torch", "onnx", "onnxscript", "onnxruntime")},
        "settings": {k: os.environ.get(k) for k in ("TRANSFORMER_MODEL", "MULTI30K_DIR")},
    }


def kept_export(out: Path, key: dict) -> bool:
    "True when `out` holds a finished export made with `key`."
    try:
        from transformer.onnx_export import ONNX_SPEC

        return json.loads((out / "key.json").read_text()) == key and (out / ONNX_SPEC).is_file()
    except (OSError, ValueError):
        return False


def start_export(out: Path) -> subprocess.Popen:
    "Start exporting the shipped model as ONNX into `out` with the course's command."
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    command = [str(Path(sys.executable).parent / "transformer-export"), "--onnx", str(out)]
    with open(out.parent / "translator.log", "w") as log:  # the child keeps its own handle
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=os.environ)


def finish_export(process: subprocess.Popen | None, out: Path, key: dict | None = None) -> dict:
    """Wait for the export (None: the kept one); its onnx.json, or a RuntimeError with the
    command's output. A finished export records `key` (key.json)."""
    from transformer.onnx_export import read_onnx_spec  # torch: only once the pages are read

    if process is None:
        return read_onnx_spec(out)
    code = process.wait()
    output = (out.parent / "translator.log").read_text()
    if code != 0:
        raise RuntimeError(f"{' '.join(process.args)} failed:\n{output}")
    print(output, end="")
    if key is not None:
        (out / "key.json").write_text(json.dumps(key, indent=1) + "\n")
    return read_onnx_spec(out)


def _builder_inited(app):
    runtime_files()  # fail early, before any page
    if app.builder.format == "html":
        out = Path(app.outdir).parent / "translator"
        app._tf_key = export_key()
        app._tf_export = None if kept_export(out, app._tf_key) else start_export(out)


def _page_context(app, pagename, templatename, context, doctree):
    if MARK in context.get("body", ""):
        app.add_js_file(f"{SITE_DIR}/translator.js", type="module")


def _build_finished(app, exception):
    if app.builder.format != "html":
        return
    if exception is not None:  # the build failed: stop the export
        if app._tf_export is not None:
            app._tf_export.kill()
        return
    from transformer.onnx_export import page_files

    build = Path(app.outdir).parent  # _build/
    spec = finish_export(app._tf_export, build / "translator", app._tf_key)
    site = Path(app.outdir) / "_static" / SITE_DIR
    shutil.rmtree(site, ignore_errors=True)
    site.mkdir(parents=True)
    for name in page_files(spec):
        shutil.copyfile(build / "translator" / name, site / name)
    for path in runtime_files():
        shutil.copyfile(path, site / path.name)
    for name, path in SCRIPTS.items():
        shutil.copyfile(path, site / name)


def setup(app):
    app.connect("builder-inited", _builder_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
