"""The model folder in the field's formats (chapter 20): tokenizer.json is a Hugging Face `tokenizers` file that gives
the ids the model reads, export and load keep the course's pipeline exactly, a word-level pipeline and a folder of the
first format are refused; and `load_translator()` fetches the shipped folder into the cache where no folder is at hand,
from a file:// copy here (the tests never touch the network)."""

import json
import shutil
import urllib.request
from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer

import transformer.shipped as shipped
from transformer.checkpoint import FormatError
from transformer.data import SPECIALS, Vocab, WordPipeline, load_split
from transformer.model import Transformer, TransformerConfig
from transformer.shipped import (
    MODEL_FILES,
    MODEL_FORMAT,
    TARGET_TOKENIZER,
    export_model,
    fetch_model,
    load_translator,
)
from transformer.subwords import SubwordPipeline
from transformer.translators import PyTorchTranslator

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "models" / "de-en-cpu"
EOS = Vocab.eos_id
GERMAN = [
    "Ein Hund rennt über die Wiese.",
    "Zwei Männer spielen Fußball im Park.",
    "Eine Frau liest ein Buch.",
    "Kinder baden im großen, blauen See!",
    "Der Mann trägt eine grüne Jacke.",
]
ENGLISH = [
    "A dog runs across the meadow.",
    "Two men play soccer in the park.",
    "A woman reads a book.",
    "Children bathe in the big, blue lake!",
    "The man wears a green jacket.",
]
PAIRS = list(zip(GERMAN, ENGLISH)) * 4


# ------------------------------------------------------------------------------------------ tokenizer.json
def test_the_shipped_tokenizer_json_gives_the_ids_the_model_reads(data_dir):
    "tokenizers alone, on every sentence of test_2016_flickr, both sides: the course's ids + <eos>, and back."
    library = Tokenizer.from_file(str(SHIPPED / "tokenizer.json"))
    pipeline = load_translator(SHIPPED, "cpu").pipeline
    sentences = [s for pair in load_split("test_2016_flickr", data_dir) for s in pair]
    assert len(sentences) == 2000 and all(sentences)
    for s, encoding in zip(sentences, library.encode_batch(sentences)):
        assert encoding.ids == pipeline.source_ids([s])[0] + [EOS], s
        assert library.decode(encoding.ids, skip_special_tokens=True) == pipeline.sentence(encoding.ids) == s


def tiny_translator(output_layer="all", shared=True):
    "An untrained model with a small sub-word pipeline learnt on a few sentences."
    pipeline = SubwordPipeline.learn(PAIRS, vocab_size=300, output_layer=output_layer, shared=shared)
    cfg = TransformerConfig(
        *pipeline.sizes,
        d_model=16,
        n_layers=1,
        h=2,
        d_ff=32,
        share_embeddings=pipeline.shared,
        out_vocab=pipeline.out_vocab,
    )
    torch.manual_seed(0)
    return PyTorchTranslator(Transformer(cfg), pipeline)


@pytest.mark.parametrize("output_layer, shared", [("all", True), ("target", True), ("all", False)])
def test_export_and_load_keep_the_pipeline_exactly(tmp_path, output_layer, shared):
    translator = tiny_translator(output_layer, shared)
    export_model(translator, tmp_path, {"note": "untrained"})
    loaded = load_translator(tmp_path, "cpu")
    assert loaded.pipeline.state() == translator.pipeline.state()  # Subwords' JSON, out_vocab, target
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["pipeline"] == {
        "kind": "bpe",
        "langs": ["de", "en"],
        "out_vocab": translator.pipeline.out_vocab,
        "target_tokenizer": None if shared else TARGET_TOKENIZER,
    }
    assert json.loads((tmp_path / "card.json").read_text())["langs"] == ["de", "en"] and loaded.langs == (
        "de",
        "en",
    )
    assert (tmp_path / TARGET_TOKENIZER).is_file() == (not shared)
    source = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert [e.ids for e in source.encode_batch(GERMAN)] == [ids + [EOS] for ids in loaded.pipeline.source_ids(GERMAN)]
    english = Tokenizer.from_file(str(tmp_path / ("tokenizer.json" if shared else TARGET_TOKENIZER)))
    for s in ENGLISH:
        ids = translator.pipeline.target.ids([s])[0]
        assert english.encode(s).ids == ids + [EOS] * shared  # the English side's own file: no <eos>
        assert english.decode(ids) == loaded.pipeline.sentence(ids) == s
    export_model(tiny_translator(), tmp_path, {})  # over a folder with a vocabulary per language
    assert not (tmp_path / TARGET_TOKENIZER).exists() and load_translator(tmp_path, "cpu").pipeline.shared


def test_a_word_pipeline_is_refused_in_one_line(tmp_path):
    words = Vocab(list(SPECIALS) + ["Hund", "dog"])
    translator = PyTorchTranslator(
        Transformer(TransformerConfig(6, 6, d_model=16, n_layers=1, h=2, d_ff=32)),
        WordPipeline(words, words, "Hund"),
    )
    with pytest.raises(FormatError, match="word-level pipeline has no tokenizers file") as e:
        export_model(translator, tmp_path / "model", {})
    assert len(str(e.value).splitlines()) == 1 and not (tmp_path / "model").exists()


@pytest.fixture
def copy(tmp_path):
    "A copy of the shipped folder."
    shutil.copytree(SHIPPED, tmp_path / "de-en-cpu")
    return tmp_path / "de-en-cpu"


def test_a_folder_of_format_1_is_refused_naming_its_format(copy):
    card = json.loads((copy / "card.json").read_text())
    assert card["format"] == MODEL_FORMAT == 2
    (copy / "card.json").write_text(json.dumps({**card, "format": 1}))
    with pytest.raises(FormatError, match=r"card.json: model folder format 1, this version reads 2 \(export it again"):
        load_translator(copy, "cpu")


@pytest.mark.parametrize(
    "fault, expected",
    [
        ("not tokenizers", "tokenizer.json: cannot be read as a tokenizers file"),
        ("no entry", "config.json: no sub-word pipeline entry"),
        ("no target file", f"{TARGET_TOKENIZER}: cannot be read as a tokenizers file"),
    ],
)
def test_a_bad_tokenizer_file_is_one_line_naming_it(copy, fault, expected):
    config = json.loads((copy / "config.json").read_text())
    if fault == "not tokenizers":
        (copy / "tokenizer.json").write_text('{"kind": "bpe", "subwords": "..."}')
    if fault == "no entry":
        del config["pipeline"]
    if fault == "no target file":
        config["pipeline"]["target_tokenizer"] = TARGET_TOKENIZER
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(FormatError, match=expected) as e:
        load_translator(copy, "cpu")
    assert len(str(e.value).splitlines()) == 1 and str(copy) in str(e.value)


# ------------------------------------------------------------------------------------------ fetching the folder
def files_under(folder):
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No folder at hand: no $TRANSFORMER_MODEL, no checkout folder, an empty cache; the files served from a copy of
    the shipped folder by a file:// URL ($TRANSFORMER_MODEL_URL); any other URL fails the test."""
    served = tmp_path / "served" / "de-en-cpu"
    shutil.copytree(SHIPPED, served)
    monkeypatch.delenv("TRANSFORMER_MODEL", raising=False)
    monkeypatch.setattr(shipped, "_CHECKOUT_MODEL", tmp_path / "no-checkout" / "de-en-cpu")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TRANSFORMER_MODEL_URL", served.as_uri())
    urlopen = urllib.request.urlopen

    def local_only(url, *args, **kw):
        assert str(url).startswith("file:"), f"the tests tried to download {url}"
        return urlopen(url, *args, **kw)

    monkeypatch.setattr(urllib.request, "urlopen", local_only)
    return served


def test_load_translator_fetches_the_shipped_folder_once_into_the_cache(nowhere, tmp_path, capsys):
    cache = tmp_path / "cache" / "transformer" / "models" / "de-en-cpu"  # beside multi30k/
    german = "Zwei Hunde spielen im Schnee."
    translation = load_translator(device="cpu").translate([german], beam_size=1)
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [f"fetched the model from {nowhere.as_uri()}/ into {cache}"]
    assert files_under(cache.parent) == [Path("de-en-cpu") / n for n in sorted(MODEL_FILES)]
    assert all((cache / n).read_bytes() == (SHIPPED / n).read_bytes() for n in MODEL_FILES)
    assert translation == load_translator(SHIPPED, "cpu").translate([german], beam_size=1)
    shutil.rmtree(nowhere)  # the second time: the cache alone
    assert shipped.default_model_folder() == cache
    assert load_translator(device="cpu").translate([german], beam_size=1) == translation
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("fault", ["altered", "cut short", "no card"])
def test_a_damaged_copy_fails_in_one_line_and_leaves_nothing(nowhere, tmp_path, fault):
    weights = nowhere / "model.safetensors"
    if fault == "altered":
        data = bytearray(weights.read_bytes())
        data[len(data) // 2] ^= 0x10
        weights.write_bytes(bytes(data))
    if fault == "cut short":
        weights.write_bytes(weights.read_bytes()[:-1000])
    if fault == "no card":
        (nowhere / "card.json").unlink()
    with pytest.raises(FormatError, match="could not fetch the model from file:.*set TRANSFORMER_MODEL") as e:
        load_translator(device="cpu")
    assert len(str(e.value).splitlines()) == 1
    assert ("does not match the card's sha256" in str(e.value)) == (fault != "no card")
    assert files_under(tmp_path / "cache") == []


def test_a_missing_url_fails_in_one_line(nowhere, tmp_path, monkeypatch):
    monkeypatch.setenv("TRANSFORMER_MODEL_URL", (tmp_path / "nowhere").as_uri())
    with pytest.raises(FormatError, match="could not fetch the model from .*set TRANSFORMER_MODEL") as e:
        load_translator(device="cpu")
    assert len(str(e.value).splitlines()) == 1 and files_under(tmp_path / "cache") == []


def test_a_named_folder_that_is_missing_is_an_error_not_a_download(nowhere, tmp_path, monkeypatch):
    with pytest.raises(FormatError, match="no model folder at"):
        load_translator(tmp_path / "mine", "cpu")
    monkeypatch.setenv("TRANSFORMER_MODEL", str(tmp_path / "mine"))
    with pytest.raises(FormatError, match="no model folder at"):
        load_translator(device="cpu")
    assert not (tmp_path / "cache").exists()


def test_a_vocabulary_per_language_is_fetched_with_its_english_file(tmp_path, capsys):
    export_model(tiny_translator(shared=False), tmp_path / "served", {})
    folder = fetch_model(tmp_path / "cache" / "model", (tmp_path / "served").as_uri())
    assert files_under(folder) == sorted(Path(n) for n in [*MODEL_FILES, TARGET_TOKENIZER])
    assert (
        load_translator(folder, "cpu").pipeline.state() == load_translator(tmp_path / "served", "cpu").pipeline.state()
    )
    assert "fetched the model" in capsys.readouterr().err


def test_out_vocab_is_read_under_its_older_key_too():
    "The shipped config.json keeps the pipeline's output count under `outputs`, its name before issue 43."
    about = json.loads((SHIPPED / "config.json").read_text())["pipeline"]
    expected = about["out_vocab"] if "out_vocab" in about else about["outputs"]
    translator = load_translator(SHIPPED, "cpu")
    assert expected is not None and translator.pipeline.out_vocab == expected == translator.model.cfg.out_vocab
