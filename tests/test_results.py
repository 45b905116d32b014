"""results/: its README's tables are what results/readme.py makes of the JSON beside it, every
name follows the folder's scheme, and every field has one name (results/README.md, issue 48)."""

import json
import runpy
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"
readme = runpy.run_path(str(RESULTS / "readme.py"))  # a script, not a module: no sys.path


def records():
    "Every JSON record in results/, with its file: the .json files and each .jsonl line."
    for p in sorted(RESULTS.rglob("*.json*")):
        if p.name == "renamed.json":
            continue
        lines = p.read_text().splitlines() if p.suffix == ".jsonl" else [p.read_text()]
        yield from ((p, json.loads(line)) for line in lines)


def keys(record):
    "Every key of a record, nested ones too."
    if isinstance(record, dict):
        for k, v in record.items():
            yield k
            yield from keys(v)
    elif isinstance(record, list):
        for v in record:
            yield from keys(v)


def test_readme_tables_are_made_from_the_files():
    text = (RESULTS / "README.md").read_text()
    assert readme["render"](text) == text, "run: python results/readme.py"
    assert len(text.splitlines()) <= 300


def test_every_name_follows_the_scheme():
    runs = readme["runs"]()
    assert len(runs) > 50
    for run in runs:
        assert readme["RUN"].fullmatch(run.name), run.name
        for p in run.rglob("*"):
            if p.is_file() and p.name != "metrics.jsonl":
                assert readme["SCORE"].fullmatch(p.name), p
    for p in (RESULTS / "bench").iterdir():
        assert readme["BENCH"].fullmatch(p.name), p
    for good in (
        "s20-cpu-bf16",
        "s44-en-fr-h200",
        "s28-cpu-avx2-prenorm-drop02-seed1",
        "s21b-cpu-bf16-1thread-bpe4k",
    ):
        assert readme["RUN"].fullmatch(good)
    for bad in ("cpu-bf16", "s38-cpu-h100", "s44-de-en-h200", "s20-cpu-bf16-seed0x"):
        assert not readme["RUN"].fullmatch(bad), bad


def test_a_name_gives_its_series_direction_recipe_and_seed():
    from transformer_course.lab import RUN

    m = RUN.fullmatch("s53-en-de-cpu-bf16-d128-drop01-seed12")
    assert (m["series"], m["direction"], m["recipe"], m["seed"]) == ("53", "en-de", "cpu-bf16-d128-drop01", "12")
    m = RUN.fullmatch("s21b-cpu-bf16-1thread-bpe4k")  # German to English: no direction
    assert (m["series"], m["direction"], m["recipe"], m["seed"]) == ("21", None, "cpu-bf16-1thread-bpe4k", None)


def test_seeds_are_summarised_as_mean_and_half_range():
    from transformer_course.lab import mean_spread

    assert mean_spread([38.1, 39.0, 38.4]) == "38.50 ± 0.45"  # not the standard deviation
    assert mean_spread([41.0, None]) == "41.00"  # a missing score left out
    assert mean_spread([]) == mean_spread([None]) == "–"


def test_a_score_file_is_named_for_what_it_records():
    for run in readme["runs"]():
        for p in run.glob("*.json"):
            weights, rest = p.stem.split("-", 1)
            r = json.loads(p.read_text())
            assert rest.startswith(r.get("split", rest.split("-beam")[0]) + "-beam"), p
            if "beam" in r:  # scored here, not from translations
                decoding = f"beam{r['beam']}" + (f"-alpha{r['alpha']}" if r["beam"] > 1 else "")
                decoding += "-unk" if r.get("unk", "allowed") == "allowed" else ""
                assert rest.endswith("-" + decoding), (p, decoding)
                assert (weights == "checkpoint") == (r["weights"] == "last"), p


def test_one_name_per_field():
    retired = readme["RETIRED"]
    for p, record in records():
        old = set(keys(record)) & set(retired)
        assert not old, f"{p}: {', '.join(f'{k} is now {retired[k]}' for k in old)}"


def test_renamed_maps_every_old_name_to_a_file_that_exists():
    renamed = json.loads((RESULTS / "renamed.json").read_text())
    root = RESULTS.parent
    for old, new in {**renamed["folders"], **renamed["files"]}.items():
        assert not (root / old).exists() and (root / new).exists(), (old, new)
