"""The translation commands (chapter 10): train, translate and evaluate, good and bad input.

Every command runs in a subprocess as a user would run it, so exit statuses and stderr are
the real ones. Training uses the `tiny` preset on the local Multi30k copy (never the network).
Every test that trains (the train command succeeding, here or in a fixture it uses) carries the
e2e mark, so that `make quicktest` (-m "not e2e") runs only the others; `command` fails a test
that trains without it.
"""

import gzip
import hashlib
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import spacy
import torch
from conftest import require_e2e
from test_translator_input import assert_translator_interface

from transformer.checkpoint import Checkpoint, FormatError, schedule_name, shape_name
from transformer.cli import run_command
from transformer.data import Vocab
from transformer.presets import PRESETS, preset
from transformer.scoring import corpus_scores, tokenized_bleu
from transformer.shipped import load_translator
from transformer.subwords import Subwords
from transformer.translators import (
    InputError,
    MissingPackage,
    PyTorchTranslator,
    TranslatorProtocol,
    optional_import,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def DATA(tmp_path_factory, data_dir):
    """A slice of the real Multi30k (the first 3,000 training pairs), so that each command starts in seconds.
    (data_dir, tests/conftest.py: without Multi30k the test is skipped, or fails under CI.)"""
    folder = tmp_path_factory.mktemp("multi30k")
    for split, n in [("train", 3000), ("val", 200), ("test_2016_flickr", 200)]:
        for lang in ("de", "en", "fr"):
            with gzip.open(data_dir / f"{split}.{lang}.gz", "rt", encoding="utf-8") as f:
                lines = f.read().split("\n")[:n]
            (folder / f"{split}.{lang}.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
            if split != "train":  # Multi30k's tokenised lowercased references, as many
                tok = f"tok/{split}.lc.norm.tok.{lang}"
                lines = (data_dir / tok).read_text(encoding="utf-8").split("\n")[:n]
                (folder / "tok").mkdir(exist_ok=True)
                (folder / tok).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def command(name, *args, stdin=None, env=None, timeout=300):
    "Run transformer-<name> (its main function) in a fresh interpreter: CompletedProcess."
    module = "cli"
    code = f"import sys; from transformer.{module} import {name}_main as m; sys.exit(m())"
    r = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        input=stdin,
        text=True,
        timeout=timeout,
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})},
    )
    if name == "train" and r.returncode == 0:
        require_e2e("the train command trained a model")
    return r


def one_line_error(r):
    "The process failed with exactly one line on stderr, starting with 'error:' (no traceback)."
    assert r.returncode != 0, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def run(tmp_path_factory, DATA):
    "A tiny model trained for 20 updates: its output folder."
    out = tmp_path_factory.mktemp("run") / "tiny"
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", out, "--max-steps", 20, "--no-progress")
    assert r.returncode == 0, r.stderr
    assert (out / "checkpoint.pt").is_file() and (out / "metrics.jsonl").is_file()
    return out


@pytest.fixture(scope="module")
def word_run(tmp_path_factory, DATA):
    "The same with chapter 9's word vocabularies (--vocab word)."
    out = tmp_path_factory.mktemp("run") / "tiny-word"
    r = command(
        "train",
        "--preset",
        "tiny",
        "--vocab",
        "word",
        "--data",
        DATA,
        "--out",
        out,
        "--max-steps",
        20,
        "--no-progress",
    )
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.e2e
def test_train_writes_checkpoint_with_vocabularies(run, word_run, DATA):
    state = torch.load(word_run / "checkpoint.pt", weights_only=True)
    assert state["step"] == 20 and state["options"]["vocab"] == "word"
    itos = state["pipeline"]["vocab"]
    assert state["pipeline"]["langs"] == ["de", "en"]
    assert itos["source"][:4] == itos["target"][:4] == ["<pad>", "<unk>", "<bos>", "<eos>"]
    assert state["model_config"]["src_vocab"] == len(itos["source"]) and not state["model_config"]["share_embeddings"]
    state = torch.load(run / "checkpoint.pt", weights_only=True)  # the preset's: one sub-word vocabulary
    sub = Subwords.from_str(state["pipeline"]["subwords"])
    size = PRESETS["tiny"]["data"]["vocab_size"]
    assert state["pipeline"]["kind"] == "bpe" and len(sub) == size
    assert state["model_config"]["src_vocab"] == state["model_config"]["tgt_vocab"] == size
    assert state["model_config"]["share_embeddings"] and state["model_config"]["tie_output"]
    # the output layer scores the pieces the English training text uses, and those come first
    out_vocab = state["pipeline"]["out_vocab"]
    assert state["model_config"]["out_vocab"] == out_vocab < size and state["options"]["output_layer"] == "target"
    english = [line for line in gzip.open(DATA / "train.en.gz", "rt").read().splitlines()]
    assert max(i for ids in sub.ids(english) for i in ids) == out_vocab - 1
    assert state["command"].startswith("transformer-train ")
    records = [json.loads(l) for l in (run / "metrics.jsonl").read_text().splitlines()]
    assert any("valid_loss" in r for r in records) and any("train_loss" in r for r in records)


@pytest.mark.e2e
def test_train_refuses_to_overwrite_a_run(run, DATA):
    before = (run / "checkpoint.pt").read_bytes()
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", run, "--max-steps", 5)
    assert "--resume" in one_line_error(r)
    assert (run / "checkpoint.pt").read_bytes() == before


def test_resume_needs_a_checkpoint(tmp_path, DATA):
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", tmp_path / "none", "--resume")
    assert "no checkpoint" in one_line_error(r)


def test_train_with_a_folder_without_data(tmp_path):
    (tmp_path / "train.de.gz").write_bytes(gzip.compress(b"ein Hund\n"))
    r = command("train", "--preset", "tiny", "--data", tmp_path, "--out", tmp_path / "run")
    assert "has no 'en' file for 'train'" in one_line_error(r) and not (tmp_path / "run").exists()


def test_unknown_config_is_a_usage_error(tmp_path):
    r = command("train", "--preset", "huge")
    assert r.returncode == 2 and "invalid choice" in r.stderr


@pytest.mark.e2e
def test_interrupted_training_resumes_from_its_checkpoint(tmp_path, DATA):
    "Kill the run (SIGKILL) after its first checkpoint; --resume finishes it."
    out = tmp_path / "run"
    code = "import sys; from transformer.cli import train_main; train_main()"
    args = ["--preset", "tiny", "--data", str(DATA), "--out", str(out), "--max-steps", "400", "--no-progress"]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    deadline = time.time() + 120
    while not (out / "checkpoint.pt").exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    interrupted = torch.load(out / "checkpoint.pt", weights_only=True)["step"]
    assert 0 < interrupted < 400
    r = command("train", *args[:-1], "--resume", "--max-steps", interrupted + 20, "--no-progress")
    assert r.returncode == 0, r.stderr
    assert torch.load(out / "checkpoint.pt", weights_only=True)["step"] == interrupted + 20


@pytest.mark.e2e
def test_a_run_resumes_from_its_folder_alone_and_refuses_a_contradiction(tmp_path, DATA):
    "--resume --out R continues with the preset, shape and TrainConfig the checkpoint records (issue 48)."
    out = tmp_path / "R"
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", out, "--max-steps", 3, "--no-progress")
    assert r.returncode == 0, r.stderr
    first = torch.load(out / "checkpoint.pt", weights_only=True)
    r = command("train", "--resume", "--data", DATA, "--out", out, "--max-steps", 6, "--no-progress")
    assert r.returncode == 0, r.stderr
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    assert state["step"] == 6 and state["preset"] == "tiny" and state["options"] == first["options"]
    assert state["model_config"] == first["model_config"]
    assert (
        state["train_config"]["max_tokens"]
        == first["train_config"]["max_tokens"]
        == PRESETS["tiny"]["train"]["max_tokens"]
    )
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for typed in (
        ["--preset", "cpu"],
        ["--n-layers", "2"],
        ["--src", "en"],
        ["--seed", "3"],
        ["--lr-factor", "0.5"],
    ):
        r = command("train", "--resume", "--data", DATA, "--out", out, "--max-steps", 9, *typed)
        line = one_line_error(r)
        assert r.returncode == 2 and typed[0] in line and "resume without the option" in line, line
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # nothing written
    r = command(
        "train",
        "--resume",
        "--preset",
        "tiny",
        "--n-layers",
        "1",
        "--data",
        DATA,
        "--out",
        out,
        "--max-steps",
        7,
        "--no-progress",
    )  # typed as recorded: fine
    assert r.returncode == 0, r.stderr
    assert torch.load(out / "checkpoint.pt", weights_only=True)["step"] == 7


@pytest.mark.e2e
def test_outputs_all_and_runs_older_than_the_option_score_every_entry(tmp_path, DATA):
    out = tmp_path / "run"
    args = ["--preset", "tiny", "--data", DATA, "--out", out, "--no-progress"]
    r = command("train", *args, "--output-layer", "all", "--max-steps", 2)
    assert r.returncode == 0, r.stderr
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    assert state["model_config"]["out_vocab"] is None and state["pipeline"]["out_vocab"] is None
    # a checkpoint of the format before this one (its options under "extra", no version) is refused in one line
    old = {k: v for k, v in state.items() if k not in ("format", "options", "pipeline")}
    torch.save({**old, "extra": {"options": state["options"], "pipeline": state["pipeline"]}}, out / "checkpoint.pt")
    r = command("train", *args, "--resume", "--max-steps", 4)
    line = one_line_error(r)
    assert r.returncode != 0 and "no format version" in line and str(out / "checkpoint.pt") in line
    line = one_line_error(command("translate", "--checkpoint", out / "checkpoint.pt", "Zwei Hunde."))
    assert "no format version" in line


@pytest.mark.e2e
def test_layers_and_pre_norm_set_the_model_and_a_resumed_run_keeps_them(tmp_path, DATA):
    out = tmp_path / "run"
    args = ["--preset", "tiny", "--data", DATA, "--out", out, "--no-progress"]
    r = command("train", *args, "--n-layers", 2, "--pre-norm", "--max-steps", 2)
    assert r.returncode == 0, r.stderr

    def layers(part):
        keys = torch.load(out / "checkpoint.pt", weights_only=True)["model"]
        return len({k.split(".")[2] for k in keys if k.startswith(f"{part}.layers.")})

    def final_norms():  # pre-norm stacks end in a LayerNorm of their own (chapter 13)
        keys = torch.load(out / "checkpoint.pt", weights_only=True)["model"]
        return {k for k in keys if k.endswith("coder.norm.weight")}

    assert (layers("encoder"), layers("decoder")) == (2, 2)  # the tiny preset has 1
    assert final_norms() == {"encoder.norm.weight", "decoder.norm.weight"}
    r = command("train", *args, "--resume", "--max-steps", 4)  # no options: the run's own
    assert r.returncode == 0, r.stderr
    assert (layers("encoder"), layers("decoder")) == (2, 2)
    assert len(final_norms()) == 2
    assert load_translator(out / "checkpoint.pt", "cpu").info["shape"] == "d_model 64, N 2, h 2, d_ff 128, pre-norm"
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", tmp_path / "bad", "--n-layers", 0)
    assert "--n-layers must be at least 1" in one_line_error(r)
    assert not (tmp_path / "bad" / "checkpoint.pt").exists()


@pytest.mark.e2e
def test_a_vocabulary_per_language_trains_translates_and_ships(tmp_path, DATA):
    "--vocab bpe-separate: two sub-word vocabularies, two embedding tables, the English one tied to the output."
    out, folder = tmp_path / "run", tmp_path / "model"
    r = command(
        "train",
        "--preset",
        "tiny",
        "--vocab",
        "bpe-separate",
        "--data",
        DATA,
        "--out",
        out,
        "--max-steps",
        2,
        "--no-progress",
    )
    assert r.returncode == 0, r.stderr
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    size = PRESETS["tiny"]["data"]["vocab_size"]
    assert state["options"]["vocab"] == "bpe-separate" and "target" in state["pipeline"]
    config = state["model_config"]
    assert not config["share_embeddings"] and (config["src_vocab"], config["tgt_vocab"]) == (size, size)
    assert config["out_vocab"] is None
    assert not torch.equal(state["model"]["src_embed.lut.weight"], state["model"]["tgt_embed.lut.weight"])
    r = command("export", out / "checkpoint.pt", folder, "--data", DATA, "--beam", 1)
    assert r.returncode == 0, r.stderr
    shipped = load_translator(folder, "cpu")
    assert shipped.model.src_embed is not shipped.model.tgt_embed
    assert shipped.model.generator.weight is shipped.model.tgt_embed.lut.weight
    lines = ["Zwei Hunde.", "Ein Mann fährt Fahrrad im Park."]
    by_folder = command("translate", "--model", folder, "--beam", 1, *lines)
    assert by_folder.returncode == 0, by_folder.stderr
    # the folder holds the checkpoint's weights in float16: the checkpoint's translator with its
    # weights so rounded translates exactly as the folder does
    rounded = load_translator(out / "checkpoint.pt", "cpu")
    with torch.no_grad():
        for p in rounded.model.parameters():
            p.copy_(p.half().float())
    assert by_folder.stdout.splitlines() == rounded.translate(lines, beam_size=1)
    assert "choose from" in command("train", "--preset", "tiny", "--vocab", "bpe2").stderr  # argparse


@pytest.mark.e2e
def test_translate_arguments_and_stdin(run):
    ckpt = run / "checkpoint.pt"
    r = command("translate", "--checkpoint", ckpt, "--beam", 1, "Ein Mann fährt Fahrrad.", "Zwei Hunde.")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 2
    r2 = command("translate", "--checkpoint", ckpt, "--beam", 1, stdin="Ein Mann fährt Fahrrad.\nZwei Hunde.\n")
    assert r2.returncode == 0 and r2.stdout == r.stdout


@pytest.mark.e2e
def test_translate_bad_lines_lose_nothing(word_run):
    "Each bad line: one error on stderr, an empty output line in its place, exit 1; the good lines are translated."
    long = " ".join(["Hund"] * 300)
    run = word_run
    r = command(
        "translate",
        "--checkpoint",
        run / "checkpoint.pt",
        "--beam",
        2,
        stdin=f"Ein Hund.\n\n{long}\nEin 字 Hund ☃.\nZwei Hunde.\n",
    )
    assert r.returncode == 1
    out, err = r.stdout.split("\n")[:-1], r.stderr.strip().splitlines()
    good = command("translate", "--checkpoint", run / "checkpoint.pt", "--beam", 2, "Ein Hund.", "Zwei Hunde.")
    assert good.returncode == 0 and len(out) == 5
    assert [out[0], out[4]] == good.stdout.split("\n")[:2] and out[1] == out[2] == out[3] == ""
    assert [e.split(":")[1].strip() for e in err] == ["line 2", "line 3", "line 4"]
    assert "empty" in err[0] and "maximum" in err[1] and "字" in err[2] and "Traceback" not in r.stderr


@pytest.mark.e2e
def test_translate_missing_and_corrupt_checkpoints(tmp_path, run):
    assert "no checkpoint" in one_line_error(command("translate", "--checkpoint", tmp_path / "no.pt", "Hallo"))
    bad = tmp_path / "bad.pt"
    bad.write_bytes((run / "checkpoint.pt").read_bytes()[:1000])  # a file cut short
    assert "corrupt" in one_line_error(command("translate", "--checkpoint", bad, "Hallo"))
    other = tmp_path / "other.pt"
    torch.save({"model": {}}, other)  # another program's file
    assert "no format version" in one_line_error(command("translate", "--checkpoint", other, "Hallo"))
    toy = tmp_path / "toy.pt"  # a checkpoint, but not a translator's
    Checkpoint({}, {"src_vocab": 5, "tgt_vocab": 5}).save(toy)
    assert "not a translation checkpoint" in one_line_error(command("translate", "--checkpoint", toy, "Hallo"))


@pytest.mark.e2e
def test_evaluate_prints_signature_and_writes_translations(run, tmp_path, DATA):
    hyp, js = tmp_path / "hyp.en", tmp_path / "scores.json"
    r = command(
        "evaluate",
        "--checkpoint",
        run / "checkpoint.pt",
        "--data",
        DATA,
        "--split",
        "val",
        "--limit",
        30,
        "--beam",
        2,
        "--output",
        hyp,
        "--json",
        js,
    )
    assert r.returncode == 0, r.stderr
    assert "BLEU signature: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:" in r.stdout
    assert len(hyp.read_text().splitlines()) == 30
    scores = json.loads(js.read_text())
    assert scores["sentences"] == 30 and scores["beam"] == 2 and 0 <= scores["bleu"] <= 100
    assert scores["unk"] == "banned" and "<unk>" not in hyp.read_text()


@pytest.mark.e2e
def test_evaluate_scores_the_published_way_too(run, tmp_path, DATA):
    "Both scorings printed and recorded; the published one is BLEU on Moses tokens against tok/, recomputed here."
    from transformer.scoring import moses_tokens

    hyp, js = tmp_path / "hyp.en", tmp_path / "scores.json"
    r = command(
        "evaluate",
        "--checkpoint",
        run / "checkpoint.pt",
        "--data",
        DATA,
        "--split",
        "val",
        "--limit",
        40,
        "--beam",
        1,
        "--output",
        hyp,
        "--json",
        js,
    )
    assert r.returncode == 0, r.stderr
    assert "BLEU signature:" in r.stdout and "tokenised lowercased references" in r.stdout
    scores = json.loads(js.read_text())
    refs = (DATA / "tok" / "val.lc.norm.tok.en").read_text(encoding="utf-8").split("\n")[:40]
    hyps = hyp.read_text(encoding="utf-8").split("\n")[:-1]
    expected = reference_bleu([h.split() for h in moses_tokens(hyps, "en")], [t.split() for t in refs])
    assert scores["bleu_published"] == pytest.approx(expected, abs=1e-6)
    again = tmp_path / "again.json"  # the same file scored with --hypotheses
    r = command("evaluate", "--hypotheses", hyp, "--data", DATA, "--split", "val", "--limit", 40, "--json", again)
    assert r.returncode == 0, r.stderr
    assert {k: json.loads(again.read_text())[k] for k in ("bleu", "bleu_published")} == {
        k: scores[k] for k in ("bleu", "bleu_published")
    }
    short = tmp_path / "short.en"
    short.write_text("one line\n")
    assert "1 lines, but val has 40" in one_line_error(
        command("evaluate", "--hypotheses", short, "--data", DATA, "--split", "val", "--limit", 40)
    )


@pytest.mark.e2e
def test_a_corpus_of_ones_own_in_any_direction_trains_translates_and_exports(tmp_path, DATA):
    """Two plain files per split with split names of one's own, English to French: the languages travel
    with the checkpoint, the folder and its card; translate and evaluate read them."""
    corpus, out, folder = tmp_path / "corpus", tmp_path / "run", tmp_path / "model"
    corpus.mkdir()
    for split, name in [("train", "learn"), ("val", "check")]:
        for lang in ("en", "fr"):
            with gzip.open(DATA / f"{split}.{lang}.gz", "rt", encoding="utf-8") as f:
                (corpus / f"{name}.{lang}").write_text(f.read(), encoding="utf-8")
    r = command(
        "train",
        "--preset",
        "tiny",
        "--data",
        corpus,
        "--src",
        "en",
        "--tgt",
        "fr",
        "--train-split",
        "learn",
        "--val-split",
        "check",
        "--out",
        out,
        "--max-steps",
        3,
        "--no-progress",
    )
    assert r.returncode == 0, r.stderr
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    assert state["pipeline"]["langs"] == ["en", "fr"] and state["options"]["langs"] == ["en", "fr"]
    translator = load_translator(out / "checkpoint.pt", "cpu")
    assert translator.langs == ("en", "fr")
    line = "Two dogs play in the snow."
    by_checkpoint = command("translate", "--checkpoint", out / "checkpoint.pt", "--beam", 1, line)
    assert by_checkpoint.returncode == 0 and by_checkpoint.stdout == translator.translate([line], 1)[0] + "\n"
    r = command(
        "export",
        out / "checkpoint.pt",
        folder,
        "--data",
        corpus,
        "--splits",
        "check",
        "--beam",
        1,
        "--alphas",
        "1.5",
    )
    assert r.returncode == 0, r.stderr
    card, config = (json.loads((folder / n).read_text()) for n in ("card.json", "config.json"))
    assert card["langs"] == config["pipeline"]["langs"] == ["en", "fr"]
    assert card["scores"]["check"]["bleu_published"] is None  # no tok/ in one's own corpus
    assert load_translator(folder, "cpu").langs == ("en", "fr")
    by_folder = command("translate", "--model", folder, "--beam", 1, line)
    assert by_folder.returncode == 0 and len(by_folder.stdout.splitlines()) == 1
    r = command(
        "evaluate",
        "--model",
        folder,
        "--data",
        corpus,
        "--split",
        "check",
        "--beam",
        1,
        "--output",
        tmp_path / "check.fr",
    )
    assert r.returncode == 0 and "BLEU signature" in r.stdout, r.stderr


@pytest.mark.e2e
def test_a_bad_corpus_stops_the_train_command_before_it_writes(tmp_path, DATA):
    corpus, out = tmp_path / "corpus", tmp_path / "run"
    corpus.mkdir()
    (corpus / "train.xx").write_text("a\nb\n"), (corpus / "train.yy").write_text("a\n")
    (corpus / "val.xx").write_text("a\n"), (corpus / "val.yy").write_text("a\n")
    err = one_line_error(
        command(
            "train",
            "--preset",
            "tiny",
            "--data",
            corpus,
            "--src",
            "xx",
            "--tgt",
            "yy",
            "--out",
            out,
            "--no-progress",
        )
    )
    assert "train: 2 lines in train.xx but 1 in train.yy" in err and not out.exists()
    assert "both 'en'" in one_line_error(
        command("train", "--preset", "tiny", "--data", DATA, "--src", "en", "--tgt", "en", "--out", out)
    )
    assert not out.exists()


def test_moses_tokens_reproduce_multi30k_tokenised_references(data_dir):
    "The published scoring's tokenisation: Multi30k's own tok/ files from its raw ones, line for line."
    from transformer.scoring import moses_tokens

    for lang in ("en", "de", "fr"):
        with gzip.open(data_dir / f"test_2016_flickr.{lang}.gz", "rt", encoding="utf-8") as f:
            raw = f.read().split("\n")[:-1]
        refs = (data_dir / "tok" / f"test_2016_flickr.lc.norm.tok.{lang}").read_text(encoding="utf-8").split("\n")[:-1]
        same = sum(a == b for a, b in zip(moses_tokens(raw, lang), refs))
        assert same >= 999, (lang, same)  # French: one sentence ends "32 de neude . \"" in ours


def test_published_bleu_is_corpus_bleu_on_moses_tokens(data_dir):
    "On the recorded en-de translations: the written-out BLEU of this file on the same tokens, and the record."
    from transformer.scoring import moses_tokens, published_bleu

    hyps = (
        (ROOT / "results/s44-en-de-h200/checkpoint-test_2016_flickr-beam4-alpha1.5.de")
        .read_text(encoding="utf-8")
        .split("\n")[:-1]
    )
    refs = (data_dir / "tok" / "test_2016_flickr.lc.norm.tok.de").read_text(encoding="utf-8").split("\n")[:-1]
    expected = reference_bleu([h.split() for h in moses_tokens(hyps, "de")], [r.split() for r in refs])
    assert published_bleu(hyps, refs, "de") == pytest.approx(expected, abs=1e-9)
    record = json.loads((ROOT / "results/s44-en-de-h200/checkpoint-test_2016_flickr-beam4-alpha1.5.json").read_text())
    assert record["bleu_published"] == pytest.approx(expected, abs=1e-9) and 30 < expected < 50


@pytest.mark.e2e
def test_evaluate_unknown_split(run, DATA):
    assert "has no split 'test_2030'" in one_line_error(
        command("evaluate", "--checkpoint", run / "checkpoint.pt", "--data", DATA, "--split", "test_2030")
    )


def reference_bleu(hyps, refs):
    "Corpus BLEU-4 written out (Papineni et al. 2002): clipped n-gram counts, geometric mean, brevity penalty."
    import collections

    matches, totals, hyp_len, ref_len = [0] * 4, [0] * 4, 0, 0
    for h, r in zip(hyps, refs):
        hyp_len, ref_len = hyp_len + len(h), ref_len + len(r)
        for n in range(1, 5):
            hn = collections.Counter(tuple(h[i : i + n]) for i in range(len(h) - n + 1))
            rn = collections.Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
            matches[n - 1] += sum(min(c, rn[g]) for g, c in hn.items())
            totals[n - 1] += max(0, len(h) - n + 1)
    if min(matches) == 0:
        return 0.0
    log_p = sum(math.log(m / t) for m, t in zip(matches, totals)) / 4
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return 100 * bp * math.exp(log_p)


def test_tokenized_bleu_is_lowercased_bleu_of_spacy_tokens():
    hyps = [
        "A man in a Blue shirt is standing on a ladder.",
        "Two dogs play in the snow!",
        "A woman's bike, leaning against a wall.",
        "Children are playing soccer outside.",
    ]
    refs = [
        "A man in a blue shirt stands on a ladder.",
        "Two dogs are playing in the snow.",
        "A woman's bicycle leans against a wall.",
        "Kids play soccer outside in the sun.",
    ]
    nlp = spacy.blank("en")
    split = lambda s: [t.text.lower() for t in nlp(s)]  # "woman's" -> woman 's ; "Blue" -> blue
    expected = reference_bleu([split(h) for h in hyps], [split(r) for r in refs])
    assert tokenized_bleu(hyps, refs) == pytest.approx(expected, rel=1e-9) and 20 < expected < 80
    assert tokenized_bleu(hyps, refs) != pytest.approx(corpus_scores(hyps, refs)["bleu"])  # another number
    assert tokenized_bleu(["A MAN ."], ["a man."]) == pytest.approx(0.0)  # no 4-gram in 3 tokens, no smoothing


def test_corpus_scores_bounds():
    refs = ["A man rides a bike.", "Two dogs play in the snow."]
    assert corpus_scores(refs, refs)["bleu"] == pytest.approx(100.0)
    assert corpus_scores(["x", "y"], refs)["bleu"] < 1.0
    assert corpus_scores(refs, refs)["chrf"] == pytest.approx(100.0)
    short = corpus_scores(["A man.", "Two dogs."], refs)  # 3 + 3 tokens (13a splits the full stop) vs 6 + 7
    assert short["length_ratio"] == pytest.approx(6 / 13)
    assert short["brevity_penalty"] == pytest.approx(math.exp(1 - 13 / 6))
    assert corpus_scores(refs, refs)["brevity_penalty"] == 1.0


@pytest.mark.e2e
def test_sub_words_translate_any_character(run):
    "Byte-level pieces: a line with characters never seen in training is translated; only empty and too long fail."
    lines = ["Ein 字 Hund ☃ 🐕.", "", " ".join(["Hund"] * 300), "Zwei Hunde."]
    r = command("translate", "--checkpoint", run / "checkpoint.pt", "--beam", 2, stdin="\n".join(lines) + "\n")
    out, err = r.stdout.split("\n")[:-1], r.stderr.strip().splitlines()
    # lines 1 and 4 are translated (what a 40-update model writes may be empty); 2 and 3 fail
    assert r.returncode == 1 and len(out) == 4 and out[1] == out[2] == ""
    assert [e.split(":")[1].strip() for e in err] == ["line 2", "line 3"]
    t = load_translator(run / "checkpoint.pt", "cpu")
    ids = t.input_ids("Ein 🐕.")
    assert Vocab.unk_id not in ids and ids[-1] == Vocab.eos_id and len(ids) >= 6  # the emoji: 4 byte pieces


@pytest.mark.e2e
def test_translator_input_checks(word_run):
    t = load_translator(word_run / "checkpoint.pt", "cpu")
    for bad, msg in [
        ("", "the sentence is empty"),
        ("   ", "the sentence is empty"),
        ("Ein ☃.", "characters never seen in training: '☃'"),
        (" ".join(["Hund"] * 400), "400 tokens, more than the model's maximum of 255"),
    ]:
        with pytest.raises(InputError, match=re.escape(msg)):
            t.input_ids(bad)
    ids = t.input_ids("Ein Hund.")
    assert ids[-1] == Vocab.eos_id and all(isinstance(i, int) for i in ids)


def tiny_translator():
    "An untrained Translator with a word pipeline learnt on two pairs."
    from transformer.data import WordPipeline
    from transformer.model import Transformer, TransformerConfig

    pipeline = WordPipeline.learn([("Ein Hund .", "A dog ."), ("Zwei Hunde .", "Two dogs .")], 1)
    torch.manual_seed(0)
    cfg = TransformerConfig(*pipeline.sizes, d_model=16, n_layers=1, h=2, d_ff=32, max_len=8)
    return PyTorchTranslator(Transformer(cfg), pipeline)


def test_the_translator_has_the_translators_interface():
    t = tiny_translator()
    assert_translator_interface(t)
    assert not isinstance(object(), TranslatorProtocol)
    ids = t.input_ids("Ein Hund .")
    assert ids[-1] == Vocab.eos_id and Vocab.unk_id not in ids
    assert t.translate(["Ein Hund ."], beam_size=1) == t.translate_ids([ids], beam_size=1)
    assert len(t.input_ids("Ein Hund Ein Hund Ein Hund .")) == 8  # max_len 8: 7 tokens and <eos> fit
    with pytest.raises(InputError, match=re.escape("8 tokens, more than the model's maximum of 7")):
        t.input_ids("Ein Hund Ein Hund Ein Hund Hund .")


def test_a_missing_package_is_not_an_input_error_and_a_command_says_it_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now fails
    with pytest.raises(MissingPackage) as error:
        optional_import("onnxruntime", "onnx")
    assert not isinstance(error.value, InputError) and isinstance(error.value, ImportError)
    assert str(error.value) == 'onnxruntime is not installed: pip install "transformer[onnx]"'
    with pytest.raises(SystemExit) as done:
        run_command(lambda: optional_import("onnxruntime", "onnx"))
    assert done.value.code == 1
    assert capsys.readouterr().err == 'error: onnxruntime is not installed: pip install "transformer[onnx]"\n'


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.e2e
def test_train_under_torchrun_two_cpu_processes(tmp_path, DATA):
    "The same command under torchrun (gloo, 2 processes) trains and writes one checkpoint."
    out = tmp_path / "ddp"
    script = Path(sys.executable).parent / "transformer-train"  # the console script pip installed
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nproc_per_node=2",
            f"--master_port={_free_port()}",
            "--no-python",
            str(script),
            "--preset",
            "tiny",
            "--data",
            str(DATA),
            "--out",
            str(out),
            "--max-steps",
            "6",
            "--device",
            "cpu",
            "--no-progress",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert r.returncode == 0, r.stdout[-3000:]
    assert torch.load(out / "checkpoint.pt", weights_only=True)["step"] == 6


@pytest.mark.e2e
def test_snapshots_are_averaged(run):
    "The tiny run keeps snapshots every 10 updates; averaged.pt holds their element-wise mean and translates."
    files = sorted((run / "snapshots").glob("step*.pt"))
    assert [f.stem for f in files] == ["step00000010", "step00000020"]
    snaps = [torch.load(f, weights_only=True)["model"] for f in files]
    avg = torch.load(run / "averaged.pt", weights_only=True)
    assert avg["averaged"] == [f.stem for f in files] and avg["optimizer"] is None
    for name, w in avg["model"].items():
        torch.testing.assert_close(w, (snaps[0][name] + snaps[1][name]) / 2)
    last = torch.load(run / "checkpoint.pt", weights_only=True)["model"]
    assert not torch.equal(avg["model"]["generator.weight"], last["generator.weight"])
    t = load_translator(run / "averaged.pt", "cpu")
    assert t.info["weights"] == "average of 2" and isinstance(t.translate(["Ein Hund."], beam_size=2)[0], str)


def test_schedule_names():
    assert schedule_name(None) == "unknown"
    assert (
        schedule_name({"warmup": 400, "lr_factor": 1.0, "decay_steps": None})
        == "inverse sqrt (Noam), warmup 400, factor 1.0"
    )
    assert (
        schedule_name({"warmup": 200, "lr_factor": 0.5, "decay_steps": 1600})
        == "linear to 0 at 1600, warmup 200, factor 0.5"
    )


def test_shape_names_read_every_size_and_the_norm_placement():
    paper = {"d_model": 512, "n_layers": 6, "h": 8, "d_ff": 2048, "dropout": 0.1}
    assert shape_name(paper) == "d_model 512, N 6, h 8, d_ff 2048"
    assert shape_name({**paper, "pre_norm": False}) == "d_model 512, N 6, h 8, d_ff 2048"
    assert shape_name({**paper, "h": 4, "d_ff": 1024, "pre_norm": True}) == "d_model 512, N 6, h 4, d_ff 1024, pre-norm"


@pytest.mark.e2e
def test_checkpoints_name_their_schedule(run):
    "Both the last and the averaged weights say which schedule trained them (the tiny preset: Noam)."
    _, cfg = preset("tiny")
    expected = schedule_name({"warmup": cfg.warmup, "lr_factor": cfg.lr_factor, "decay_steps": cfg.decay_steps})
    assert load_translator(run / "checkpoint.pt", "cpu").info["schedule"] == expected
    assert load_translator(run / "averaged.pt", "cpu").info["schedule"] == expected
    info = load_translator(run / "checkpoint.pt", "cpu").info
    assert info["precision"] == "fp32" and info["precision_reason"] == "asked for"  # the tiny preset says fp32
    averaged = load_translator(run / "averaged.pt", "cpu").info  # the same record
    assert {k: averaged[k] for k in ("precision", "precision_reason", "planned_steps")} == {
        k: info[k] for k in ("precision", "precision_reason", "planned_steps")
    }


@pytest.mark.e2e
def test_precision_option_reaches_the_run(tmp_path, DATA):
    out = tmp_path / "run"
    r = command(
        "train",
        "--preset",
        "tiny",
        "--data",
        DATA,
        "--out",
        out,
        "--max-steps",
        2,
        "--precision",
        "bf16",
        "--no-progress",
    )
    assert r.returncode == 0, r.stderr
    assert "precision: bf16 (asked for)" in r.stderr
    info = load_translator(out / "checkpoint.pt", "cpu").info
    assert (info["precision"], info["precision_reason"]) == ("bf16", "asked for")
    assert "precision" in json.loads((out / "metrics.jsonl").read_text().splitlines()[0])
    assert command("train", "--preset", "tiny", "--precision", "fp16").returncode == 2  # argparse's usage error


@pytest.mark.e2e
def test_a_timed_cpu_run_plans_its_length_and_says_so(tmp_path, DATA):
    "The cpu preset with a short budget: it measures, prints and records a plan, and ends on it or on the clock."
    out = tmp_path / "run"
    r = command(
        "train",
        "--preset",
        "cpu",
        "--data",
        DATA,
        "--out",
        out,
        "--max-minutes",
        0.25,
        "--warmup",
        10,
        "--max-tokens",
        400,
        "--precision",
        "fp32",
        "--lr-factor",
        0.7,
        "--no-progress",
    )
    assert r.returncode == 0, r.stderr
    plan = next(json.loads(l)["plan"] for l in (out / "metrics.jsonl").read_text().splitlines() if '"plan"' in l)
    assert f"plan: {plan['steps']} updates (what fits 0.25 minutes)" in r.stderr and plan["fixed_at"] == 10
    info = load_translator(out / "checkpoint.pt", "cpu").info
    assert info["planned_steps"] == plan["steps"] and info["step"] <= plan["steps"]
    assert info["schedule"] == f"linear to 0 at {plan['steps']}, warmup 10, factor 0.7"
    assert info["train_minutes"] <= 0.35
    assert torch.backends.cpu.get_cpu_capability() in info["hardware"] and "threads" in info["hardware"]
    r = command(
        "train",
        "--preset",
        "cpu",
        "--data",
        DATA,
        "--out",
        tmp_path / "typed",
        "--max-minutes",
        0.25,
        "--decay-steps",
        500,
    )
    assert "plans its own decay_steps" in one_line_error(r)
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", tmp_path / "neg", "--lr-factor", 0)
    assert "lr_factor must be positive" in one_line_error(r)


@pytest.mark.e2e
def test_command_line_overrides_reach_the_run(tmp_path, DATA):
    out = tmp_path / "run"
    r = command(
        "train",
        "--preset",
        "tiny",
        "--data",
        DATA,
        "--out",
        out,
        "--max-steps",
        3,
        "--max-tokens",
        700,
        "--decay-steps",
        150,
        "--no-progress",
    )
    assert r.returncode == 0, r.stderr
    tc = torch.load(out / "checkpoint.pt", weights_only=True)["train_config"]
    assert (tc["max_tokens"], tc["decay_steps"], tc["max_steps"]) == (700, 150, 3)
    info = load_translator(out / "checkpoint.pt", "cpu").info
    assert info["max_tokens"] == 700 and info["schedule"].startswith("linear to 0 at 150")
    # a decay that ends inside the warmup (tiny: 100 updates) is refused, and no run is left behind
    r = command("train", "--preset", "tiny", "--data", DATA, "--out", tmp_path / "bad", "--decay-steps", 50)
    assert "decay_steps" in one_line_error(r)
    assert not (tmp_path / "bad" / "checkpoint.pt").exists()


@pytest.mark.e2e
def test_batched_translation_keeps_order_and_matches_one_by_one(run):
    "translate_ids sorts by length to batch; the outputs come back in input order, as if translated alone."
    t = load_translator(run / "checkpoint.pt", "cpu")
    sentences = [
        "Ein Mann mit einem roten Hut sitzt auf einer Bank im Park.",
        "Zwei Hunde.",
        "Eine Frau spielt Gitarre.",
        "Kinder.",
    ]
    for beam in (1, 3):
        together = t.translate(sentences, beam_size=beam)
        assert together == [t.translate([s], beam_size=beam)[0] for s in sentences]


@pytest.mark.e2e
def test_unk_is_banned_unless_allowed(run, tmp_path, DATA):
    "A model pushed to say <unk> everywhere: by default the decoders may not, unk=True / --allow-unk lets them."
    t = load_translator(run / "checkpoint.pt", "cpu")
    decode = t.model.decode

    def unk_logit_plus(shift):  # the model with `shift` added to the <unk> logit
        def shifted(*args, **kwargs):
            logits = decode(*args, **kwargs).clone()
            logits[..., Vocab.unk_id] += shift
            return logits

        return shifted

    sentences = [
        "Ein Mann mit einem roten Hut sitzt auf einer Bank im Park.",
        "Zwei Hunde spielen im Schnee.",
    ]
    t.model.decode = unk_logit_plus(-math.inf)  # the reference for greedy: a model that cannot score <unk>
    reference = t.translate(sentences, beam_size=1, unk=True)
    t.model.decode = unk_logit_plus(30.0)  # a model that prefers <unk> everywhere
    for beam in (1, 3):
        assert all("<unk>" in out for out in t.translate(sentences, beam_size=beam, unk=True))
        banned = t.translate(sentences, beam_size=beam)
        assert not any("<unk>" in out for out in banned)
        if beam == 1:  # greedy with the ban picks the best token other than <unk>
            assert banned == reference
    r = command(
        "evaluate",
        "--checkpoint",
        run / "checkpoint.pt",
        "--data",
        DATA,
        "--split",
        "val",
        "--limit",
        20,
        "--beam",
        1,
        "--allow-unk",
        "--json",
        tmp_path / "s.json",
    )
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "s.json").read_text())["unk"] == "allowed"
    assert (run / "checkpoint.val.beam1.unk.en").is_file()
    r = command("translate", "--checkpoint", run / "checkpoint.pt", "--allow-unk", "--beam", 1, *sentences)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2


# ------------------------------------------------------------------------------------------ the model folder
@pytest.fixture(scope="module")
def folder(run, DATA, tmp_path_factory):
    "The tiny run exported as a model folder (transformer-export)."
    out = tmp_path_factory.mktemp("model") / "de-en-tiny"
    r = command("export", run / "checkpoint.pt", out, "--data", DATA, "--beam", 2)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.e2e
def test_export_writes_float16_weights_once_each_with_their_checksum(folder, run):
    from safetensors import safe_open

    card = json.loads((folder / "card.json").read_text())
    assert card["sha256"] == hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert card["dtype"] == "float16" and card["run"]["step"] == 20 and card["scores"]["decoded_in"] == "float32"
    assert {"val", "test_2016_flickr"} <= set(card["scores"])
    with safe_open(folder / "model.safetensors", "pt") as f:
        names = set(f.keys())
        assert all(f.get_tensor(n).dtype == torch.float16 for n in names)
    # one matrix for source embedding, target embedding and output layer: stored once
    assert "src_embed.lut.weight" in names and not {"tgt_embed.lut.weight", "generator.weight"} & names
    ckpt, shipped = load_translator(run / "checkpoint.pt", "cpu"), load_translator(folder, "cpu")
    assert next(shipped.model.parameters()).dtype == torch.float32  # decoded in float32
    for name, p in ckpt.model.state_dict().items():  # float16 rounding only
        assert torch.allclose(shipped.model.state_dict()[name], p, rtol=1e-3, atol=1e-4), name
    assert shipped.model.generator.weight is shipped.model.tgt_embed.lut.weight is shipped.model.src_embed.lut.weight


@pytest.mark.e2e
def test_evaluate_and_translate_read_a_model_folder(folder, tmp_path, DATA):
    card = json.loads((folder / "card.json").read_text())
    js = tmp_path / "s.json"
    r = command("evaluate", "--model", folder, "--data", DATA, "--beam", 2, "--json", js, "--output", tmp_path / "h")
    assert r.returncode == 0, r.stderr
    assert json.loads(js.read_text())["bleu"] == pytest.approx(card["scores"]["test_2016_flickr"]["bleu"], abs=1e-9)
    by_flag = command("translate", "--model", folder, "--beam", 2, "Zwei Hunde.")
    by_default = command("translate", "--beam", 2, "Zwei Hunde.", env={"TRANSFORMER_MODEL": str(folder)})
    assert by_flag.returncode == by_default.returncode == 0 and by_flag.stdout == by_default.stdout != ""
    assert "not allowed with" in command("translate", "--model", folder, "--checkpoint", "x.pt", "a").stderr


@pytest.mark.e2e
@pytest.mark.parametrize(
    "fault, expected",
    [
        ("missing", "model.safetensors: missing"),
        ("truncated", "model.safetensors: checksum mismatch"),
        ("altered", "model.safetensors: checksum mismatch"),
        ("shape", "needs"),
        ("card", "card.json: missing"),
        ("tokenizer", "tokenizer.json: vocabularies of"),
        ("format", "card.json: model folder format None"),
        (
            "format 1",
            "card.json: model folder format 1, this version reads 2 (export it again: transformer-export)",
        ),
    ],
)
def test_a_damaged_model_folder_is_one_line_naming_the_file(folder, tmp_path, fault, expected):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    weights = bad / "model.safetensors"
    if fault == "missing":
        weights.unlink()
    if fault == "truncated":
        weights.write_bytes(weights.read_bytes()[:-1000])
    if fault == "altered":
        data = bytearray(weights.read_bytes())
        data[-10] ^= 0xFF
        weights.write_bytes(bytes(data))
    if fault == "shape":  # a configuration that does not fit the weights
        cfg = json.loads((bad / "config.json").read_text())
        cfg["d_ff"] *= 2
        (bad / "config.json").write_text(json.dumps(cfg))
    if fault == "card":
        (bad / "card.json").unlink()
    if fault == "format":  # a folder written before its format had a version
        card = json.loads((bad / "card.json").read_text())
        del card["format"]
        (bad / "card.json").write_text(json.dumps(card))
    if fault == "format 1":  # a folder of the first format (its tokenizer.json the course's own)
        card = json.loads((bad / "card.json").read_text())
        card["format"] = 1
        (bad / "card.json").write_text(json.dumps(card))
    if fault == "tokenizer":  # another model's vocabulary (8,000 pieces, not 1,000)
        shutil.copy(ROOT / "models" / "de-en-cpu" / "tokenizer.json", bad / "tokenizer.json")
    r = command("translate", "--model", bad, "Zwei Hunde.")
    line = one_line_error(r)
    assert r.returncode == 1 and expected in line and str(bad) in line
    with pytest.raises(FormatError, match=re.escape(expected)):
        load_translator(bad, "cpu")


@pytest.mark.e2e
def test_a_word_level_run_is_not_exported(word_run, tmp_path):
    "A word vocabulary has no tokenizers file: transformer-export refuses it in one line and writes nothing."
    r = command("export", word_run / "checkpoint.pt", tmp_path / "model")
    assert "word-level pipeline has no tokenizers file" in one_line_error(r)
    assert not (tmp_path / "model").exists()


def test_no_model_folder_is_one_line(tmp_path):
    line = one_line_error(command("translate", "Zwei Hunde.", env={"TRANSFORMER_MODEL": str(tmp_path / "none")}))
    assert "no model folder" in line and "--model" in line


@pytest.mark.e2e
def test_bench_translate_prints_speeds(folder, DATA, tmp_path):
    "The course's Translator and CTranslate2 (float32, int8) on the same sentences, greedy and beam: times and BLEU."
    pytest.importorskip("ctranslate2")
    js = tmp_path / "bench.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.bench.translate",
            "--model",
            str(folder),
            "--data",
            str(DATA),
            "--sentences",
            "6",
            "--threads",
            "1",
            "--repeats",
            "1",
            "--batch",
            "4",
            "--beam",
            "2",
            "--json",
            str(js),
        ],
        cwd=ROOT,
        text=True,
        capture_output=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert r.returncode == 0, r.stderr
    result = json.loads(js.read_text())
    rows = {(row["engine"], row["search"]): row for row in result["results"]}
    engines = {"course (PyTorch)", "CTranslate2 float32", "CTranslate2 int8"}
    assert set(rows) == {(e, s) for e in engines for s in ("greedy", "beam 2")}
    assert all(
        row["sentences"] == 6 and row["sentences_per_s"] > 0 and 0 <= row["bleu"] <= 100 for row in rows.values()
    )
    assert rows["course (PyTorch)", "greedy"]["x_ctranslate2_float32"] > 0
    assert rows["CTranslate2 float32", "greedy"]["same_as_course"] == 6  # greedy is the same function
    assert "CPU" in result["hardware"] and result["threads"] == 1 and "BLEU" in r.stdout


def test_snapshots_keep_more_than_they_average_and_average_any_spacing(tmp_path):
    "Snapshots keeps `keep`, averages the newest `last` that are `every` apart; the tool does the same."
    from transformer.model import Transformer, TransformerConfig
    from transformer.snapshots import Snapshots

    model = Transformer(TransformerConfig(10, 10, d_model=8, n_layers=1, h=2, d_ff=16))
    snaps = Snapshots(model, tmp_path / "snapshots", every=10, last=2, keep=5)
    for step in range(10, 90, 10):  # 8 snapshots, weights = step
        with torch.no_grad():
            for p in model.parameters():
                p.fill_(step)
        snaps({"step": step, "train_loss": 1.0})
        snaps({"step": step, "valid_loss": 1.0})  # validations keep nothing
    kept = sorted(int(f.stem[4:]) for f in (tmp_path / "snapshots").glob("step*.pt"))
    assert kept == [40, 50, 60, 70, 80]
    Checkpoint(model.state_dict(), {}, {}, step=80, elapsed_s=1).save(tmp_path / "checkpoint.pt")
    assert snaps.write_average(tmp_path / "checkpoint.pt", tmp_path / "a.pt") == 2
    assert all(t.eq(75).all() for t in Checkpoint.load(tmp_path / "a.pt").model.values())  # (70 + 80) / 2
    from tools.runs import average_snapshots

    assert average_snapshots.main([str(tmp_path), "--every", "20", "--last", "3"]) == 0
    averaged = Checkpoint.load(tmp_path / "averaged-20x3.pt")
    assert all(t.eq(60).all() for t in averaged.model.values())  # 40, 60, 80
    assert averaged.averaged == ["step00000040", "step00000060", "step00000080"]
    assert average_snapshots.main([str(tmp_path), "--every", "20", "--last", "4"]) == 1  # only 3
    assert not (tmp_path / "averaged-20x4.pt").exists()
