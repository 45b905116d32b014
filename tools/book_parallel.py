"""Sphinx extension for the book: execute the chapters on every core, not one after another.

myst-nb executes a notebook while Sphinx reads it, so a serial build runs the chapters one at
a time, and the book takes as long as all of them together. Sphinx can read in several
processes at once (each extension of the book declares that it may), but `jupyter-book build`
has no option for it, and Sphinx's own split of the documents would put all the slow chapters
(those that train a model) into one process. This extension:
- sets the number of reading processes to `$BOOK_JOBS`, by default the number of cores
  (`BOOK_JOBS=1` gives the serial build), and gives each chapter's kernel its share of the
  cores as PyTorch threads (`OMP_NUM_THREADS`, unless the caller set it): chapters side by
  side that each used every core would slow each other down;
- splits the chapters between the processes by how long each takes to execute
  (`book_execution_seconds` in _config.yml, measured; a chapter not listed counts 10 s),
  longest first, each to the process with the least work so far, so that the processes end
  at about the same time.
Nothing else changes: every chapter is still executed once per build, a failing cell still
fails the `-W` build, and the pages are the same.
"""
import os

import sphinx.builders
from sphinx.util import logging

logger = logging.getLogger(__name__)

DEFAULT_SECONDS = 10
# Extensions that jupyter-book loads and that keep no state of their own per document (so
# nothing needs merging after a parallel read), but that do not say so: without this, Sphinx
# warns and reads serially. sphinx_jupyterbook_latex only acts in LaTeX builds;
# sphinx_multitoc_numbering renumbers the toctree once, when the builder starts.
UNDECLARED_SAFE = ("sphinx_jupyterbook_latex", "sphinx_multitoc_numbering")


def jobs():
    "The number of chapters executed at once: $BOOK_JOBS, else the number of cores."
    value = os.environ.get("BOOK_JOBS", "").strip()
    if not value:
        return cores()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"BOOK_JOBS={value!r}: give a whole number of processes, 1 or more")
    return int(value)


def cores():
    "The cores this process may run on."
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def balanced_chunks(docnames, nproc, seconds):
    """Split `docnames` into at most `nproc` lists of about equal execution time:
    longest first, each to the list with the least time so far."""
    chunks = [[] for _ in range(min(nproc, len(docnames)))]
    load = [0.0] * len(chunks)
    for doc in sorted(docnames, key=lambda d: -seconds.get(d, DEFAULT_SECONDS)):
        i = load.index(min(load))
        chunks[i].append(doc)
        load[i] += seconds.get(doc, DEFAULT_SECONDS)
    return [c for c in chunks if c]


def _config_inited(app, config):
    for name in UNDECLARED_SAFE:
        if name in app.extensions and app.extensions[name].parallel_read_safe is None:
            app.extensions[name].parallel_read_safe = True
    seconds = dict(config.book_execution_seconds or {})
    # Sphinx asks make_chunks how to split the documents to read (and to write)
    sphinx.builders.make_chunks = lambda docnames, nproc, maxbatch=10: balanced_chunks(
        docnames, nproc, seconds)


def _report(app, exception):
    "After the build: how long each chapter took to execute, for book_execution_seconds."
    from myst_nb.sphinx_ import NbMetadataCollector
    if exception is not None:
        return
    times = {doc: (NbMetadataCollector.get_exec_data(app.env, doc) or {}).get("runtime")
             for doc in sorted(app.env.all_docs)}
    times = {doc: t for doc, t in times.items() if t is not None}
    if times:
        logger.info(f"executed {len(times)} chapters in {app.parallel} processes; seconds each: "
                    + ", ".join(f"{doc.split('/')[-1]} {t:.0f}" for doc, t in times.items()))


def setup(app):
    app.add_config_value("book_execution_seconds", {}, "env")
    app.parallel = jobs()
    # the kernels myst-nb starts inherit the environment
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, cores() // app.parallel)))
    app.connect("config-inited", _config_inited)
    app.connect("build-finished", _report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
