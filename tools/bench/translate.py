"""Translation speed of the course's Translator against CTranslate2 (float32 and int8), on this machine.

Translates the first --sentences German captions of a Multi30k split (default: all 1,000 of
test_2016_flickr) with the course's `Translator` (chapter 10: batches of one source length,
chapter 8's searches in the form where a finished sentence leaves the batch) and with the same
model converted to CTranslate2 (chapter 22, `transformer.ctranslate`) in float32 and in int8,
greedily and with beam search, on the same sentences and the same number of threads. Prints,
for each search and engine, the seconds, sentences per second, the time as a multiple of
CTranslate2 float32's, and sacreBLEU; with the machine, PyTorch's CPU capability, the bf16
flags lscpu lists, the threads, the precision and the load average before and after.
The engines take turns, search by search and repeat by repeat, so that a machine that gets
busier slows all of them alike and the ratios stay fair; each time is the median of --repeats
runs after a warm-up. Each run is a fresh interpreter of its own: CTranslate2 brings its own
copy of the OpenMP runtime, and once it has run in a process, PyTorch's decoding in that
process was about 40% slower in a one-off check (2 threads, the AMD EPYC of results/README.md). Nothing is asserted: this prints what it measures. Needs CTranslate2:
pip install "transformer[ctranslate2]".

examples:
  python -m tools.bench.translate                        # shipped model, 1,000 test captions, 2 threads
  python -m tools.bench.translate --sentences 200 --threads 1
  python -m tools.bench.translate --json                 # also writes results/bench/translate-ct2-<machine>-<threads>.json
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from transformer.cli import run_command
from transformer.data import load_split
from transformer.machine import cpu_capability, describe_machine
from transformer.shipped import load_translator
from transformer.translate import ALPHA

ROOT = Path(__file__).resolve().parents[2]


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--model", help="model folder (default: the shipped model)")
    p.add_argument("--data", help="folder with the Multi30k .gz files (default: $MULTI30K_DIR)")
    p.add_argument("--split", default="test_2016_flickr")
    p.add_argument("--sentences", type=int, help="translate only the first N sentences (default: all)")
    p.add_argument("--threads", type=int, default=2, help="threads of PyTorch and of CTranslate2 (default 2)")
    p.add_argument("--beam", type=int, default=4, help="beam size of the beam-search runs (default 4)")
    p.add_argument("--batch", type=int, default=64, help="most sentences decoded together (default 64)")
    p.add_argument("--repeats", type=int, default=1, help="timed runs per engine and search (default 1)")
    p.add_argument(
        "--json",
        nargs="?",
        const="auto",
        metavar="PATH",
        help="also write the results to PATH (without PATH: results/bench/translate-ct2-<machine>-"
        "<threads>.json, the machine as cpu-bf16 or cpu-<PyTorch's capability>)",
    )
    # one timed run in this process, asked for by the bench itself (see the docstring)
    p.add_argument("--engine", help=argparse.SUPPRESS)
    p.add_argument("--engine-beam", type=int, help=argparse.SUPPRESS)
    p.add_argument("--engine-out", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def lscpu_bf16_flags():
    "The flags with bf16 in their name that lscpu lists ('none' if none, 'unknown' without lscpu)."
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    flags = [f for line in out.splitlines() if line.lower().startswith("flags") for f in line.split()[1:]]
    return " ".join(f for f in flags if "bf16" in f) or "none"


def machine_kind(bf16_flags):
    "cpu-bf16 where the CPU has bfloat16 instructions, else cpu-<PyTorch's capability> (e.g. cpu-avx2)."
    return (
        "cpu-bf16"
        if bf16_flags not in ("none", "unknown")
        else f"cpu-{torch.backends.cpu.get_cpu_capability().lower()}"
    )


ENGINES = {"course (PyTorch)": "float32", "CTranslate2 float32": "float32", "CTranslate2 int8": "int8"}


def run_engine(a):
    "The child's work: warm up, then time one engine on the sentences; seconds and outputs to --engine-out."
    torch.set_num_threads(a.threads)
    translator = load_translator(a.model, "cpu")
    sources = [translator.input_ids(de) for de, _ in load_split(a.split, a.data)[: a.sentences]]
    with tempfile.TemporaryDirectory() as folder:
        engine = translator
        if a.engine != "course (PyTorch)":
            from transformer.ctranslate import CTranslate2Translator, export_ctranslate2

            quantization = None if ENGINES[a.engine] == "float32" else ENGINES[a.engine]
            path = export_ctranslate2(translator, Path(folder) / "ct2", quantization)
            engine = CTranslate2Translator(path, a.threads)
        engine.translate_ids(sources[:16], a.engine_beam, ALPHA, a.batch)  # warm-up
        start = time.perf_counter()
        outputs = engine.translate_ids(sources, a.engine_beam, ALPHA, a.batch)
        seconds = time.perf_counter() - start
    Path(a.engine_out).write_text(json.dumps({"seconds": seconds, "outputs": outputs}))


def timed(a, name, beam):
    "One engine's run in a fresh interpreter: (seconds, outputs)."
    options = [
        f"--{k}={v}"
        for k, v in (
            ("model", a.model),
            ("data", a.data),
            ("split", a.split),
            ("sentences", a.sentences),
            ("threads", a.threads),
            ("batch", a.batch),
        )
        if v is not None
    ]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tools.bench.translate",
                *options,
                "--engine",
                name,
                "--engine-beam",
                str(beam),
                "--engine-out",
                str(out),
            ],
            check=True,
            cwd=ROOT,
        )
        run = json.loads(out.read_text())
    return run["seconds"], run["outputs"]


def bleu(hypotheses, references):
    "sacreBLEU's corpus BLEU and its signature (as chapter 10 computes it)."
    import sacrebleu

    metric = sacrebleu.metrics.BLEU()
    return metric.corpus_score(hypotheses, [references]).score, str(metric.get_signature())


def main(argv=None):
    a = parse_args(argv)
    if a.engine:
        return run_engine(a)
    torch.set_num_threads(a.threads)
    load_before = os.getloadavg()
    references = [en for _, en in load_split(a.split, a.data)[: a.sentences]]
    searches = [("greedy", 1), (f"beam {a.beam}", a.beam)]
    rows = []
    runners = ENGINES  # name: precision
    for search, beam in searches:
        times, outputs = {name: [] for name in runners}, {}
        for repeat in range(a.repeats):
            for name in runners:  # one engine after the other
                seconds, outputs[name] = timed(a, name, beam)
                times[name].append(seconds)
                print(f"{search}, {name}: {times[name][-1]:.2f} s (run {repeat + 1} of {a.repeats})", flush=True)
        base = statistics.median(times["CTranslate2 float32"])
        for name, precision in runners.items():
            seconds = statistics.median(times[name])
            score, signature = bleu(outputs[name], references)
            rows.append(
                {
                    "engine": name,
                    "search": search,
                    "precision": precision,
                    "sentences": len(references),
                    "seconds": round(seconds, 2),
                    "sentences_per_s": round(len(references) / seconds, 1),
                    "x_ctranslate2_float32": round(seconds / base, 2),
                    "bleu": round(score, 2),
                    "same_as_course": sum(h == c for h, c in zip(outputs[name], outputs["course (PyTorch)"])),
                }
            )
    import ctranslate2

    bf16 = lscpu_bf16_flags()
    result = {
        "model": str(a.model or "shipped (models/de-en-cpu)"),
        "split": a.split,
        "hardware": describe_machine("cpu"),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "cpu": cpu_capability(),
        "lscpu_bf16_flags": bf16,
        "threads": a.threads,
        "alpha": ALPHA,
        "batch": a.batch,
        "repeats": a.repeats,
        "torch": torch.__version__,
        "ctranslate2": ctranslate2.__version__,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "bleu_signature": signature,
        "results": rows,
    }
    print(f"\nmachine: {result['hardware']}")
    print(
        f"PyTorch CPU capability {result['cpu_capability']}; bf16 flags (lscpu): {bf16}; threads {a.threads} "
        f"(PyTorch and CTranslate2); course in float32; load average {load_before[0]:.2f} before, "
        f"{result['load_average_after'][0]:.2f} after"
    )
    print(
        f"{'search':<8} {'engine':<20} {'precision':<9} {'seconds':>8} {'sent/s':>8} {'x CT2 fp32':>10} "
        f"{'BLEU':>6} {'same as course':>15}"
    )
    for r in rows:
        print(
            f"{r['search']:<8} {r['engine']:<20} {r['precision']:<9} {r['seconds']:>8.2f} "
            f"{r['sentences_per_s']:>8.1f} {r['x_ctranslate2_float32']:>10.2f} {r['bleu']:>6.2f} "
            f"{r['same_as_course']:>8} of {r['sentences']}"
        )
    print(f"BLEU: {signature}")
    if a.json:
        path = Path(
            a.json
            if a.json != "auto"
            else ROOT / "results" / "bench" / f"translate-ct2-{machine_kind(bf16)}-{a.threads}threads.json"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    run_command(main)
