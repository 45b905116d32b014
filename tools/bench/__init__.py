"""Speed benchmarks (`python -m tools.bench.training`, `.translate`, `.generation`); their results are
in results/bench/."""
