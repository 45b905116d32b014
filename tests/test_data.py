"""Multi30k loading, tokenization and vocabularies (transformer.data). Never touches the network."""

import gzip
import shutil
from collections import Counter
from pathlib import Path

import pytest
import spacy

from transformer.data import (
    JOIN,
    SPECIALS,
    DataError,
    Tokenizer,
    Vocab,
    WordPipeline,
    given_folder,
    load_split,
    multi30k_folder,
    read_lines,
    split_files,
    unk_rate,
    with_eos,
)

ROOT = Path(__file__).resolve().parents[1]


def raw_lines(path):  # an independent reader: bytes, decoded and split by hand
    return gzip.decompress(Path(path).read_bytes()).decode("utf-8").split("\n")[:-1]


def test_counts_and_alignment(data_dir, train):
    sizes = {s: len(load_split(s, data_dir)) for s in ["train", "val", "test_2016_flickr"]}
    assert sizes == {"train": 29000, "val": 1014, "test_2016_flickr": 1000}
    de, en = raw_lines(data_dir / "train.de.gz"), raw_lines(data_dir / "train.en.gz")
    assert train == list(zip(de, en))
    assert train[0] == (
        "Zwei junge weiße Männer sind im Freien in der Nähe vieler Büsche.",
        "Two young, White males are outside near many bushes.",
    )
    test = load_split("test_2016_flickr", data_dir)
    assert test[-1] == tuple(raw_lines(data_dir / f"test_2016_flickr.{l}.gz")[-1] for l in ("de", "en"))


def test_env_variable(data_dir, monkeypatch):
    monkeypatch.setenv("MULTI30K_DIR", str(data_dir))
    assert multi30k_folder(download=False) == data_dir
    assert len(load_split("val")) == 1014


def test_missing_folder_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    with pytest.raises(DataError, match="no data folder .*nowhere"):
        multi30k_folder(tmp_path / "nowhere")
    (tmp_path / "train.de.gz").write_bytes(gzip.compress(b"x\n"))
    with pytest.raises(DataError, match="no 'en' file for 'train'.*it has train.de.gz"):
        multi30k_folder(tmp_path, ["train"])  # half a split is missing
    monkeypatch.setenv("MULTI30K_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(DataError):
        load_split("val")
    with pytest.raises(DataError, match="unknown split"):
        split_files("test_2099")
    with pytest.raises(DataError, match="Multi30k has no language 'xx'"):
        split_files("val", ("de", "xx"))


def write_corpus(folder, split, texts, gz=False):
    "Files SPLIT.LANG (or .gz) holding `texts[lang]` (bytes) in `folder`."
    folder.mkdir(parents=True, exist_ok=True)
    for lang, data in texts.items():
        name = f"{split}.{lang}" + (".gz" if gz else "")
        (folder / name).write_bytes(gzip.compress(data) if gz else data)


# Each malformed corpus: (files of split "val", load_split's languages, the one line expected)
BAD_CORPORA = {
    "a missing split": ({}, ("xx", "yy"), r"has no split 'val' \(no file val.LANG or val.LANG.gz\)"),
    "a language without a file": (
        {"xx": b"a\n", "zz": b"b\n"},
        ("xx", "yy"),
        r"has no 'yy' file for 'val' .*it has val.xx, val.zz",
    ),
    "different line counts": (
        {"xx": b"a\nb\nc\n", "yy": b"a\nb\n"},
        ("xx", "yy"),
        r"val: 3 lines in val.xx but 2 in val.yy",
    ),
    "a line that is not UTF-8": (
        {"xx": b"a\nb\xff\xfec\n", "yy": b"a\nb\n"},
        ("xx", "yy"),
        r"val.xx: line 2 is not UTF-8",
    ),
    "an empty line": ({"xx": b"a\n\nc\n", "yy": b"a\nb\nc\n"}, ("xx", "yy"), r"val.xx: line 2 is empty"),
    "a source equal to the target": (
        {"xx": b"a\n"},
        ("xx", "xx"),
        r"the source and target languages are both 'xx'",
    ),
    "an empty file": ({"xx": b"", "yy": b"a\n"}, ("xx", "yy"), r"val.xx is empty"),
}


@pytest.mark.parametrize("case", list(BAD_CORPORA))
def test_a_bad_corpus_is_one_clear_error(tmp_path, case):
    files, langs, message = BAD_CORPORA[case]
    write_corpus(tmp_path, "val", files)
    with pytest.raises(DataError, match=message) as e:
        load_split("val", tmp_path, src=langs[0], tgt=langs[1])
    assert "\n" not in str(e.value)  # one line


def test_any_pair_of_languages_and_a_corpus_of_ones_own(data_dir, tmp_path):
    en_fr = load_split("val", data_dir, src="en", tgt="fr")
    assert en_fr[0] == (raw_lines(data_dir / "val.en.gz")[0], raw_lines(data_dir / "val.fr.gz")[0])
    assert [e for e, _ in en_fr] == [e for _, e in load_split("val", data_dir)]
    write_corpus(tmp_path, "dev", {"xx": b"ein\nzwei\n", "yy": b"one\ntwo\n"})
    write_corpus(tmp_path, "train", {"xx": b"ein\n", "yy": b"one\n"}, gz=True)
    assert load_split("dev", tmp_path, src="xx", tgt="yy") == [("ein", "one"), ("zwei", "two")]
    assert load_split("train", tmp_path, src="yy", tgt="xx") == [("one", "ein")]


def test_tokenized_references_are_multi30k_tok_files(data_dir, tmp_path, monkeypatch):
    from transformer.data import load_tokenized_references

    refs = load_tokenized_references("test_2016_flickr", "de", data_dir)
    expected = (data_dir / "tok" / "test_2016_flickr.lc.norm.tok.de").read_text(encoding="utf-8").split("\n")[:-1]
    assert refs == expected and len(refs) == 1000
    assert load_tokenized_references("test_2016_flickr", "de", tmp_path) is None  # a folder without tok/
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def fake_fetch(url, dest):
        assert url.endswith("/data/task1/tok/val.lc.norm.tok.fr")
        shutil.copy(data_dir / "tok" / "val.lc.norm.tok.fr", dest)

    assert len(load_tokenized_references("val", "fr", fetch=fake_fetch)) == 1014


def test_misaligned_split_is_an_error(tmp_path):
    (tmp_path / "val.de.gz").write_bytes(gzip.compress(b"a\nb\n"))
    (tmp_path / "val.en.gz").write_bytes(gzip.compress(b"a\n"))
    with pytest.raises(DataError, match="val: 2 lines in val.de.gz but 1 in val.en.gz"):
        load_split("val", tmp_path)
    (tmp_path / "val.en.gz").write_bytes(b"not gzip")
    with pytest.raises(DataError, match="cannot read"):
        load_split("val", tmp_path)


def test_download_with_fake_fetcher_caches(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []

    def fake_fetch(url, dest):
        calls.append(url)
        shutil.copy(data_dir / url.rsplit("/", 1)[1], dest)

    with pytest.raises(DataError, match="MULTI30K_DIR"):  # nothing cached, downloads not allowed
        multi30k_folder(download=False)
    folder = multi30k_folder(fetch=fake_fetch)
    assert folder == tmp_path / "transformer" / "multi30k"
    assert sorted(u.rsplit("/", 1)[1] for u in calls) == sorted(
        f"{s}.{l}.gz" for s in ["train", "val", "test_2016_flickr"] for l in ["de", "en"]
    )
    assert all(u.startswith("https://raw.githubusercontent.com/multi30k/dataset/") for u in calls)
    assert len(load_split("val", download=False)) == 1014
    multi30k_folder(fetch=fake_fetch)  # second call: everything is cached
    assert len(calls) == 6


def test_download_through_file_url(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = multi30k_folder(splits=["val"], url=data_dir.as_uri() + "/{name}")  # the real fetch_url, no network
    assert read_lines(folder / "val.en.gz") == raw_lines(data_dir / "val.en.gz")


def test_failed_download_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def offline(url, dest):
        raise OSError("network is unreachable")

    with pytest.raises(DataError, match="could not download .*network is unreachable"):
        multi30k_folder(splits=["val"], fetch=offline)
    with pytest.raises(DataError, match="could not download"):
        multi30k_folder(splits=["val"], url=(tmp_path / "missing").as_uri() + "/{name}")
    assert not list((tmp_path / "transformer" / "multi30k").glob("*"))  # no partial files left


@pytest.mark.parametrize("lang,column", [("de", 0), ("en", 1)])
def test_detokenize_is_exact_on_training_set(train, lang, column):
    tok = Tokenizer(lang)
    sentences = [p[column] for p in train]
    token_lists = tok.tokenize_many(sentences)
    assert all(Tokenizer.detokenize(t) == s for t, s in zip(token_lists, sentences))
    assert token_lists[:50] == [tok(s) for s in sentences[:50]]


def test_tokens_follow_spacy():
    nlp, tok = spacy.blank("en"), Tokenizer("en")
    for s in ['A man\'s "red" hat (2 of them).', "  two  spaces\tand a tab ", "don't stop", "x"]:
        doc, pieces = nlp(s), tok(s)
        assert [p.removeprefix(JOIN) for p in pieces][: len(doc)] == [t.text for t in doc]
        # "##" exactly where spaCy says there is no space before the token
        assert [p.startswith(JOIN) for p in pieces[1 : len(doc)]] == [not t.whitespace_ for t in doc[:-1]]
        assert Tokenizer.detokenize(pieces) == s
    assert tok("A dog.") == ["A", "dog", "##."]
    assert Tokenizer.detokenize(["##.", "A", "dog"]) == ". A dog"  # a stray marker at the start is dropped
    assert Tokenizer("de")("Ein Mann, z.B. hier.") == ["Ein", "Mann", "##,", "z.B.", "hier", "##."]


def test_vocab_min_freq_specials_unk():
    lists = [["a", "b", "a"], ["c", "a", "b"], ["d"]]
    v = Vocab.build(lists, min_freq=2)
    assert v.itos == ["<pad>", "<unk>", "<bos>", "<eos>", "a", "b"]
    assert (v.pad_id, v.unk_id, v.bos_id, v.eos_id) == (0, 1, 2, 3) and len(v) == 6
    assert v.ids(["a", "c", "zzz"], bos=True, eos=True) == [2, 4, 1, 1, 3]
    assert v.tokens([2, 4, 5, 0, 3, 4]) == ["a", "b"]  # <bos>/<pad> dropped, stops at <eos>
    assert Vocab.build(lists, min_freq=1).itos[4:] == ["a", "b", "c", "d"]
    assert Vocab.build(lists, min_freq=1, max_size=2).itos[4:] == ["a", "b"]
    assert "a" in v and "c" not in v
    with pytest.raises(ValueError):
        Vocab(["a", "b"])


def test_vocab_from_train_and_round_trip(train, tmp_path):
    import torch

    tok = Tokenizer("en")
    lists = tok.tokenize_many([p[1] for p in train[:3000]])
    v = Vocab.build(lists, min_freq=2)
    counts = Counter(t for l in lists for t in l)
    assert set(v.itos[4:]) == {t for t, c in counts.items() if c >= 2}
    assert all(counts[a] >= counts[b] for a, b in zip(v.itos[4:], v.itos[5:]))  # most frequent first
    torch.save({"vocab": v.itos}, tmp_path / "v.pt")  # as a pipeline's state keeps it
    w = Vocab(torch.load(tmp_path / "v.pt")["vocab"])
    assert w.itos == v.itos and w.stoi == v.stoi


def test_word_pipeline_ids_are_the_vocabularies_ids_of_spacys_tokens(train):
    de, en = Tokenizer("de"), Tokenizer("en")
    pipeline = WordPipeline.learn(train[:500])
    vd, ve = pipeline.src_words, pipeline.tgt_words
    assert vd.itos == Vocab.build(de.tokenize_many([p[0] for p in train[:500]])).itos
    for sd, se in train[:3]:
        assert with_eos(pipeline.source_ids([sd])[0]) == [vd.stoi.get(x, 1) for x in de(sd)] + [3]
        assert pipeline.target_ids([se])[0] == [ve.stoi.get(x, 1) for x in en(se)]


def test_unk_rate_counts_tokens_the_vocabulary_lacks():
    v = Vocab(list(SPECIALS) + ["a", "b"])
    assert unk_rate(v, [["a", "x"], ["b", "b", "y", "z"]]) == 3 / 6
    assert unk_rate(v, [["a"], []]) == 0.0 and unk_rate(v, []) == 0.0


def test_with_eos_ends_every_source_in_eos_and_respects_the_limit():
    from transformer.data import with_eos

    for ids in ([], [7], [5, 6, 9, 12]):
        out = with_eos(ids)
        assert out == list(ids) + [Vocab.eos_id] and out is not ids
        for limit in (1, 2, 3, 10):
            cut = with_eos(ids, limit)
            assert len(cut) == min(len(ids) + 1, limit) and cut[-1] == Vocab.eos_id
            assert cut[:-1] == list(ids)[: len(cut) - 1]


def test_given_folder_is_the_argument_else_the_environment_else_none(monkeypatch, tmp_path):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    assert given_folder() is None and given_folder(tmp_path) == tmp_path
    monkeypatch.setenv("MULTI30K_DIR", str(tmp_path / "env"))
    assert given_folder() == tmp_path / "env" and given_folder(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.setenv("MULTI30K_DIR", "")  # an empty variable is no folder
    assert given_folder() is None
    assert given_folder("~/corpus") == Path.home() / "corpus"
