"""Multi30k loading, tokenization and vocabularies (transformer.data). Never touches the network."""
import gzip, os, shutil
from collections import Counter
from pathlib import Path
import pytest
import spacy
from transformer.data import (DataError, Tokenizer, Vocab, SPECIALS, JOIN, multi30k_dir, load_split, read_lines,
                              split_files, fetch_url, encode_pairs)

ROOT = Path(__file__).resolve().parents[1]


def shared_data():
    "The offline copy of Multi30k: $MULTI30K_DIR, else ../shared/data/multi30k next to the repository."
    for d in [os.environ.get("MULTI30K_DIR"), ROOT.parent / "shared" / "data" / "multi30k"]:
        if d and (Path(d) / "train.de.gz").is_file():
            return Path(d)
    pytest.skip("Multi30k files not found (set MULTI30K_DIR)")


@pytest.fixture(scope="module")
def data_dir():
    return shared_data()


@pytest.fixture(scope="module")
def train(data_dir):
    return load_split("train", data_dir)


def raw_lines(path):                      # an independent reader: bytes, decoded and split by hand
    return gzip.decompress(Path(path).read_bytes()).decode("utf-8").split("\n")[:-1]


def test_counts_and_alignment(data_dir, train):
    sizes = {s: len(load_split(s, data_dir)) for s in ["train", "val", "test_2016_flickr"]}
    assert sizes == {"train": 29000, "val": 1014, "test_2016_flickr": 1000}
    de, en = raw_lines(data_dir / "train.de.gz"), raw_lines(data_dir / "train.en.gz")
    assert train == list(zip(de, en))
    assert train[0] == ("Zwei junge weiße Männer sind im Freien in der Nähe vieler Büsche.",
                        "Two young, White males are outside near many bushes.")
    test = load_split("test_2016_flickr", data_dir)
    assert test[-1] == tuple(raw_lines(data_dir / f"test_2016_flickr.{l}.gz")[-1] for l in ("de", "en"))


def test_env_variable(data_dir, monkeypatch):
    monkeypatch.setenv("MULTI30K_DIR", str(data_dir))
    assert multi30k_dir(download=False) == data_dir
    assert len(load_split("val")) == 1014


def test_missing_folder_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    with pytest.raises(DataError, match="train.de.gz"):
        multi30k_dir(tmp_path / "nowhere")
    (tmp_path / "train.de.gz").write_bytes(gzip.compress(b"x\n"))
    with pytest.raises(DataError, match="train.en.gz"):      # half a split is missing
        multi30k_dir(tmp_path, ["train"])
    monkeypatch.setenv("MULTI30K_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(DataError):
        load_split("val")
    with pytest.raises(DataError, match="unknown split"):
        split_files("test_2099")


def test_misaligned_split_is_an_error(tmp_path):
    (tmp_path / "val.de.gz").write_bytes(gzip.compress(b"a\nb\n"))
    (tmp_path / "val.en.gz").write_bytes(gzip.compress(b"a\n"))
    with pytest.raises(DataError, match="2 German but 1 English"):
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
    with pytest.raises(DataError, match="MULTI30K_DIR"):      # nothing cached, downloads not allowed
        multi30k_dir(download=False)
    folder = multi30k_dir(fetch=fake_fetch)
    assert folder == tmp_path / "transformer" / "multi30k"
    assert sorted(u.rsplit("/", 1)[1] for u in calls) == sorted(
        f"{s}.{l}.gz" for s in ["train", "val", "test_2016_flickr"] for l in ["de", "en"])
    assert all(u.startswith("https://raw.githubusercontent.com/multi30k/dataset/") for u in calls)
    assert len(load_split("val", download=False)) == 1014
    multi30k_dir(fetch=fake_fetch)                              # second call: everything is cached
    assert len(calls) == 6


def test_download_through_file_url(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = multi30k_dir(splits=["val"], url=data_dir.as_uri() + "/{name}")   # the real fetch_url, no network
    assert read_lines(folder / "val.en.gz") == raw_lines(data_dir / "val.en.gz")


def test_failed_download_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    def offline(url, dest): raise OSError("network is unreachable")
    with pytest.raises(DataError, match="could not download .*network is unreachable"):
        multi30k_dir(splits=["val"], fetch=offline)
    with pytest.raises(DataError, match="could not download"):
        multi30k_dir(splits=["val"], url=(tmp_path / "missing").as_uri() + "/{name}")
    assert not list((tmp_path / "transformer" / "multi30k").glob("*"))   # no partial files left


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
        assert [p.removeprefix(JOIN) for p in pieces][:len(doc)] == [t.text for t in doc]
        # "##" exactly where spaCy says there is no space before the token
        assert [p.startswith(JOIN) for p in pieces[1:len(doc)]] == [not t.whitespace_ for t in doc[:-1]]
        assert Tokenizer.detokenize(pieces) == s
    assert tok("A dog.") == ["A", "dog", "##."]
    assert Tokenizer.detokenize(["##.", "A", "dog"]) == ". A dog"     # a stray marker at the start is dropped
    assert Tokenizer("de")("Ein Mann, z.B. hier.") == ["Ein", "Mann", "##,", "z.B.", "hier", "##."]


def test_vocab_min_freq_specials_unk():
    lists = [["a", "b", "a"], ["c", "a", "b"], ["d"]]
    v = Vocab.build(lists, min_freq=2)
    assert v.itos == ["<pad>", "<unk>", "<bos>", "<eos>", "a", "b"]
    assert (v.pad_id, v.unk_id, v.bos_id, v.eos_id) == (0, 1, 2, 3) and len(v) == 6
    assert v.encode(["a", "c", "zzz"], bos=True, eos=True) == [2, 4, 1, 1, 3]
    assert v.decode([2, 4, 5, 0, 3, 4]) == ["a", "b"]            # <bos>/<pad> dropped, stops at <eos>
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
    assert all(counts[a] >= counts[b] for a, b in zip(v.itos[4:], v.itos[5:]))   # most frequent first
    torch.save({"vocab": v.to_dict()}, tmp_path / "v.pt")
    w = Vocab.from_dict(torch.load(tmp_path / "v.pt")["vocab"])
    assert w.itos == v.itos and w.stoi == v.stoi


def test_encode_pairs(train):
    de, en = Tokenizer("de"), Tokenizer("en")
    vd, ve = Vocab.build(de.tokenize_many([p[0] for p in train[:500]])), Vocab.build(en.tokenize_many([p[1] for p in train[:500]]))
    pairs = encode_pairs(train[:3], de, en, vd, ve)
    for (s, t), (sd, se) in zip(pairs, train[:3]):
        assert s == [vd.stoi.get(x, 1) for x in de(sd)] + [3]
        assert t == [ve.stoi.get(x, 1) for x in en(se)]


# ------------------------------------------------------------------------------------------ sub-words (BPE)
def naive_bpe(word_counts, n_merges):
    """Brute-force BPE: recount every pair of every word before each merge; ties to the pair whose symbols were
    made first (bytes by code point, merged symbols in order). Slow, obviously right."""
    from transformer.data import BYTE_ALPHABET
    words = {tuple(w): c for w, c in word_counts.items()}
    made = list(BYTE_ALPHABET)
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]): pairs[p] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], made.index(p[0]), made.index(p[1])))
        merges.append(best)
        if best[0] + best[1] not in made: made.append(best[0] + best[1])
        new = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if w[i:i + 2] == best: out.append(w[i] + w[i + 1]); i += 2
                else: out.append(w[i]); i += 1
            new[tuple(out)] = new.get(tuple(out), 0) + c
        words = new
    return merges


def test_learn_bpe_matches_brute_force_and_breaks_ties_by_age():
    from transformer.data import learn_bpe
    assert learn_bpe({"ab": 1, "cd": 1}, 1) == [("a", "b")]          # a tie: 'a' is older than 'c'
    assert learn_bpe({"cd": 2, "ab": 1}, 1) == [("c", "d")]          # counts first
    assert learn_bpe({"aaaa": 1}, 2) == [("a", "a"), ("aa", "aa")]   # overlapping pairs: left to right
    words = Counter("der die das dem den ein eine einem einer Hund Hunde Hunden Hündin rennt rennen "
                    "Männer Mann Frau Frauen spielen spielt Spiel aaa aaaa abab".split() * 3 + ["Hund"] * 5)
    from transformer.data import byte_words
    counts = Counter(w for s, c in words.items() for w in byte_words(s) for _ in range(c))
    assert learn_bpe(counts, 60) == naive_bpe(counts, 60)


def test_readable_bpe_and_the_library_agree(train, data_dir):
    "The same merges in the same order, and the same pieces for every validation sentence (held out)."
    from transformer.data import Subwords, apply_bpe, byte_words, learn_bpe
    sentences = [s for p in train for s in p]
    library = Subwords.learn(sentences, vocab_size=3000)
    counts = Counter(w for s in sentences for w in byte_words(s))
    merges = library.merges
    assert len(library) == 3000 and len(merges) > 2500
    assert learn_bpe(counts, len(merges)) == merges
    rank = {p: r for r, p in enumerate(merges)}
    for de, en in load_split("val", data_dir):
        for s in (de, en):
            assert library.pieces(s) == [p for w in byte_words(s) for p in apply_bpe(w, rank)]


def test_sub_words_round_trip_every_training_pair_and_any_text(train):
    from transformer.data import Subwords
    sub = Subwords.learn([s for p in train for s in p], vocab_size=8000)
    for side in (0, 1):
        sentences = [p[side] for p in train]
        ids = sub.ids(sentences)
        assert all(sub.text(i) == s for i, s in zip(ids, sentences))
        assert Subwords.unk_id not in {t for i in ids for t in i}
    odd = ["  two  spaces, a tab\\t and one at the end ", "字 ☃ 🐕 \u200b é (combining)", "\x00\x7f", ""]
    assert [sub.text(i) for i in sub.ids(odd)] == odd
    ids = sub.ids(["Zwei Hunde."])[0]
    assert sub.text([Subwords.bos_id] + ids + [Subwords.eos_id] + ids + [Subwords.pad_id]) == "Zwei Hunde."
    assert Subwords.from_str(sub.to_str()).ids(["Ein Hund 🐕."]) == sub.ids(["Ein Hund 🐕."])


def test_readable_shows_bytes_as_text():
    from transformer.data import BYTE_ALPHABET, _BYTE_OF, byte_words, readable
    assert sorted(_BYTE_OF) == list(BYTE_ALPHABET) and sorted(_BYTE_OF.values()) == list(range(256))
    assert [readable(w) for w in byte_words("Ein Mann über der Straße")] == ["▁Ein", "▁Mann", "▁über", "▁der",
                                                                          "▁Straße"]
    dog = byte_words("🐕")[0]                                       # a space and four bytes
    assert readable(dog) == "▁🐕" and readable(dog[:2]) == "▁\\xf0"


def test_pipelines_share_one_interface_and_survive_a_checkpoint(train):
    import json
    from transformer.data import Subwords, SubwordPipeline, WordPipeline, pipeline_from_state
    pairs = train[:2000]
    word, bpe = WordPipeline.learn(pairs), SubwordPipeline.learn(pairs, 1000)
    de, en = "Ein Mann mit einem Schutzhelm.", "A man with a hard hat."
    assert bpe.sizes == (1000, 1000) and bpe.shared and not word.shared
    assert word.sizes == (len(word.src_vocab), len(word.tgt_vocab))
    for pipe in (word, bpe):
        again = pipeline_from_state(json.loads(json.dumps(pipe.state())))
        assert type(again) is type(pipe) and again.sizes == pipe.sizes
        assert again.source_ids([de]) == pipe.source_ids([de]) and again.target_ids([en]) == pipe.target_ids([en])
        assert pipe.sentence(pipe.target_ids([en])[0] + [Vocab.eos_id, 9]) == en
    assert word.unseen("Ein ☃ Mann") == ["☃"] and bpe.unseen("Ein ☃ Mann") == []
    assert "".join(bpe.source_pieces(bpe.source_ids([de])[0])) == "▁" + de.replace(" ", "▁")
    # checkpoints from before sub-words keep their word vocabularies at the top of `extra`
    old = {"vocab": {"de": word.src_vocab.itos, "en": word.tgt_vocab.itos}, "src_chars": "abc"}
    assert isinstance(pipeline_from_state(old), WordPipeline)
