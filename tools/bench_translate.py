"""Translation speed of a model folder (default: the shipped model) on this machine.

Translates the first --sentences German sentences of a Multi30k split with the package's
batched decoders (sources of one length decoded together, the key/value cache on), greedy
and with beam search, in float32, and prints sentences per second for each, with the
machine, the thread count and the precision. Each measurement is the median of --repeats
runs after one warm-up. Nothing is asserted: this prints what it measures.

examples:
  python tools/bench_translate.py                          # shipped model, 200 test sentences
  python tools/bench_translate.py --threads 1 --json results/bench/translate-1thread.json
"""
import argparse
import json
import statistics
import time

import torch

from transformer.data import load_split
from transformer.machine import cpu_capability, describe_machine
from transformer.shipped import load_model
from transformer.translate import ALPHA


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="model folder (default: the shipped model)")
    p.add_argument("--data", help="folder with the Multi30k .gz files (default: $MULTI30K_DIR)")
    p.add_argument("--split", default="test_2016_flickr")
    p.add_argument("--sentences", type=int, default=200, help="sentences translated per run (default 200)")
    p.add_argument("--batch", type=int, default=64, help="most sentences decoded together (default 64)")
    p.add_argument("--beam", type=int, default=4, help="beam size of the beam-search run (default 4)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per measurement (default 3)")
    p.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    p.add_argument("--json", help="also write the results to this file")
    return p.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    if a.threads: torch.set_num_threads(a.threads)
    translator = load_model(a.model, "cpu")
    german = [de for de, _ in load_split(a.split, a.data)[:a.sentences]]
    sources = [translator.sentence_ids(s) for s in german]
    rows = []
    for beam in (1, a.beam):
        translator.translate_ids(sources[:a.batch], beam, ALPHA, a.batch)          # warm-up
        times = []
        for _ in range(a.repeats):
            start = time.perf_counter()
            translator.translate_ids(sources, beam, ALPHA, a.batch)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        rows.append({"decoding": "greedy" if beam == 1 else f"beam {beam}", "sentences": len(sources),
                     "seconds": round(seconds, 2), "sentences_per_s": round(len(sources) / seconds, 1)})
        print(f"{rows[-1]['decoding']:>8}: {len(sources)} sentences in {seconds:.2f} s, "
              f"{rows[-1]['sentences_per_s']} sentences/s")
    result = {"model": str(a.model or "shipped (models/de-en-cpu)"), "hardware": describe_machine("cpu"),
              "threads": torch.get_num_threads(), "cpu": cpu_capability(), "precision": "fp32",
              "batch": a.batch, "kv_cache": True, "results": rows}
    print(f"machine: {result['hardware']}; precision fp32; batches of up to {a.batch} sentences")
    if a.json:
        with open(a.json, "w") as f:
            f.write(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
