"""Tools for training runs: `python -m tools.runs.average_snapshots` (average a run's snapshots) and
`python -m tools.runs.capstone_seeds` (how far seeds move the capstone's toy run)."""
