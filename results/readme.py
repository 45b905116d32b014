"""Rewrite the tables of results/README.md from the JSON files beside it.

    python results/readme.py          # rewrite the tables between the README's markers
    python results/readme.py --check  # exit 1 if a table differs from what the files give

Each table sits between `<!-- table NAME -->` and `<!-- end NAME -->`; the prose outside
the markers is written by hand. tests/test_results.py runs `render` and compares.
Also the naming rules of this folder, which the test checks every name against.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run by path: the repository's transformer_course
from transformer_course.lab import RUN, mean_spread  # noqa: E402  (the naming, the seeds' summary)

# a score file: weights, split, decoding (alpha for a beam, -unk where <unk> could come out)
SCORE = re.compile(
    r"(checkpoint|averaged(-\d+x\d+)?)-(val|test_2016_flickr)"
    r"-beam(1|[2-9]\d*-alpha\d+\.\d+)(-unk)?\.(json|[a-z]{2})"
)
BENCH = re.compile(r"(training|translate)-" + RUN.pattern + r"\.json")
RETIRED = {
    "search_s": "decode_s",
    "config": "preset",
    "outputs": "output_layer",
    "layers": "n_layers",
    "reason": "precision_reason",
    "batch": "batch_sentences",
    "cpu": "cpu_capability",
    "decoding": "search",
    "machine": "hardware",
}
NOT_RUNS = ("bench", "toy")
PREFERRED = ("beam4-alpha1.5", "beam4-alpha0.6", "beam4-alpha0.6-unk")
SEARCH_FROM = 52  # the recipe search of issue 50: its own table, published-way BLEU


def runs():
    "The run folders, in order."
    return sorted(d for d in HERE.iterdir() if d.is_dir() and d.name not in NOT_RUNS)


def score(run, weights, split, decoding):
    "A score file's record, or None."
    p = run / f"{weights}-{split}-{decoding}.json"
    return json.loads(p.read_text()) if p.is_file() else None


def machine(hardware):
    "The kind of machine, from a recorded hardware string."
    if "CPU" not in hardware:
        return hardware.replace("NVIDIA ", "").split(" ")[0]
    return "CPU, AVX2 only" if "restricted" in hardware or "no bf16" in hardware else "CPU, bf16"


def bleu(r):
    "A record's BLEU as text, or nothing."
    return f"{r['bleu']:.2f}" if r else ""


def run_table():
    rows = [
        "| run | machine | precision | updates | minutes | decoding | val: last / averaged | test: last / averaged |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in (r for r in runs() if series(r) < SEARCH_FROM):
        decoding = next(
            (
                d
                for d in PREFERRED
                if score(run, "checkpoint", "test_2016_flickr", d) or score(run, "checkpoint", "val", d)
            ),
            None,
        )
        first = (
            score(run, "checkpoint", "test_2016_flickr", decoding) or score(run, "checkpoint", "val", decoding)
            if decoding
            else None
        )
        if not first or "langs" in first:
            continue  # another direction: below
        s = {
            (w, sp): score(run, w, sp, decoding)
            for w in ("checkpoint", "averaged")
            for sp in ("val", "test_2016_flickr")
        }
        pair = lambda sp: " / ".join(bleu(s[w, sp]) or "–" for w in ("checkpoint", "averaged"))
        rows.append(
            f"| `{run.name}` | {machine(first['hardware'])} | "
            f"{first.get('precision') or 'fp32'} | {first['step']:,} | "
            f"{first['train_minutes']} | {decoding} | "
            f"{pair('val')} | {pair('test_2016_flickr')} |"
        )
    return rows


def directions_table():
    rows = [
        "| run | direction | weights | alpha | val: published / sacreBLEU | test: published / sacreBLEU |",
        "|---|---|---|---|---|---|",
    ]
    for run in (r for r in runs() if series(r) < SEARCH_FROM):
        for weights in ("checkpoint", "averaged"):
            for alpha in ("1.5", "0.6"):
                v, t = (score(run, weights, sp, f"beam4-alpha{alpha}") for sp in ("val", "test_2016_flickr"))
                if not v or "langs" not in v:
                    continue
                both = lambda r: f"{r['bleu_published']:.2f} / {r['bleu']:.2f}"
                rows.append(
                    f"| `{run.name}` | {' → '.join(v['langs'])} | {weights} | {alpha} | {both(v)} | {both(t)} |"
                )
    return rows


def series(run):
    "The series number of a run folder (s21b: 21)."
    return int(run.name[1:3])


def search_table():
    "One row per direction and recipe of the search (its seeds together, from any series): published-way BLEU."
    rows = [
        "| direction | recipe (run without series and seed) | seeds | updates "
        "| val: last | val: averaged | test: last | test: averaged |",
        "|---|---|---|---|---|---|---|---|",
    ]
    groups = {}
    for run in runs():
        if series(run) >= SEARCH_FROM:
            m = RUN.fullmatch(run.name)
            groups.setdefault((m["direction"] or "de-en", m["recipe"]), []).append(run)
    for (direction, recipe), members in sorted(groups.items()):
        cell = lambda w, sp: mean_spread(
            [r["bleu_published"] for r in (score(m, w, sp, PREFERRED[0]) for m in members) if r]
        )
        last = sorted({max(json.loads(line).get("step", 0) for line in (m / "metrics.jsonl").open()) for m in members})
        updates = "–".join(f"{n:,}" for n in last[:: max(1, len(last) - 1)])
        rows.append(
            f"| {direction} | `{recipe}` | {len(members)} | {updates} | {cell('checkpoint', 'val')} | "
            f"{cell('averaged', 'val')} | {cell('checkpoint', 'test_2016_flickr')} | "
            f"{cell('averaged', 'test_2016_flickr')} |"
        )
    return rows


def averaging_table():
    "One row per run with other averages: val BLEU of each set of weights, best first."
    rows = ["| run | val BLEU of each set of weights (every E updates, the last K: `ExK`) |", "|---|---|"]
    for run in runs():
        own = [score(run, w, "val", PREFERRED[0]) for w in ("checkpoint", "averaged")]
        more = [json.loads(p.read_text()) for p in sorted((run / "averaging").glob("*.json"))]
        if not more:
            continue
        weights = sorted((r for r in own + more if r), key=lambda r: -r["bleu"])
        rows.append(
            f"| `{run.name}` | " + ", ".join(f"`{Path(r['checkpoint']).stem}` {bleu(r)}" for r in weights) + " |"
        )
    return rows


def translate_table():
    "One row per file and search: seconds (and BLEU) of each engine."
    engines = ("course (PyTorch)", "CTranslate2 float32", "CTranslate2 int8")
    rows = [
        "| file | search | " + " | ".join(f"{e}: s (BLEU)" for e in engines) + " |",
        "|---|---|---|---|---|",
    ]
    for p in sorted((HERE / "bench").glob("translate-*.json")):
        by = {(r.get("engine", engines[0]), r["search"]): r for r in json.loads(p.read_text())["results"]}
        for search in dict.fromkeys(s for _, s in by):
            cell = lambda r: f"{r['seconds']}" + (f" ({r['bleu']})" if "bleu" in r else "") if r else ""
            rows.append(f"| `{p.name}` | {search} | " + " | ".join(cell(by.get((e, search))) for e in engines) + " |")
    return rows


def training_table():
    rows = ["| file | machine | torch | sentences / batch | variants |", "|---|---|---|---|---|"]
    for p in sorted((HERE / "bench").glob("training-*.json")):
        b = json.loads(p.read_text())
        rows.append(
            f"| `{p.name}` | {machine(b['hardware'])} | {b['torch']} | {b['batch_sentences']} | {len(b['results'])} |"
        )
    return rows


TABLES = {
    "runs": run_table,
    "directions": directions_table,
    "search": search_table,
    "averaging": averaging_table,
    "translate": translate_table,
    "training": training_table,
}


def render(text):
    "The README's text with every table between its markers made again from the files."
    for name, make in TABLES.items():
        text, n = re.subn(
            rf"(<!-- table {name} -->\n).*?(<!-- end {name} -->)",
            lambda m: m[1] + "\n".join(make()) + "\n" + m[2],
            text,
            flags=re.S,
        )
        assert n == 1, f"README.md: no markers for the table {name}"
    return text


if __name__ == "__main__":
    readme = HERE / "README.md"
    text = readme.read_text()
    if "--check" in sys.argv:
        sys.exit(
            0
            if render(text) == text
            else "results/README.md: tables differ from the JSON; run python results/readme.py"
        )
    readme.write_text(render(text))
