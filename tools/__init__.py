"""The course's own tools, by purpose; run each from the repository's root as a module
(`python -m tools.book.build`):

- tools.book: the book (its build, its Sphinx extensions, the checks of the built site);
- tools.bench: the speed benchmarks whose results are in results/bench/;
- tools.runs: what is done with training runs (averaging snapshots, the capstone's seeds).
"""
