"""The lab log's conventions, shared by `results/readme.py` (which writes results/README.md's
tables) and the book's Recorded runs page (which reads the same files): how a run folder in
results/ is named, and how the scores of a recipe's seeds are summarised."""

import re

# a run folder: series, direction unless de-en, recipe (machine, one thread, changes), seed
RUN = re.compile(
    r"s(?P<series>\d\d)[a-z]?(-(?!de-en)(?P<direction>[a-z]{2}-[a-z]{2}))?"
    r"-(?P<recipe>(cpu-(bf16|fp32|avx2)(-1thread)?|[a-z]\d{3})(-(?!seed)[a-z0-9]+)*)"
    r"(-seed(?P<seed>[1-9]\d*))?"
)


def mean_spread(values):
    "Mean ± half the range of the values given, as text; None values left out, none: '–'."
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    mean, half = sum(values) / len(values), (max(values) - min(values)) / 2
    return f"{mean:.2f}" + (f" ± {half:.2f}" if len(values) > 1 else "")
