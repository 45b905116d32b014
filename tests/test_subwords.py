"""Sub-words (transformer.subwords): the readable byte-pair encoding against a brute-force version and
the library, exact round trips, and the two pipelines. Never touches the network."""

import json
from collections import Counter

from transformer.data import load_split


def naive_bpe(word_counts, n_merges):
    """Brute-force BPE: recount every pair of every word before each merge; ties to the pair whose symbols were
    made first (bytes by code point, merged symbols in order). Slow, obviously right."""
    from transformer.subwords import BYTE_ALPHABET

    words = {tuple(w): c for w, c in word_counts.items()}
    made = list(BYTE_ALPHABET)
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                pairs[p] += c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], made.index(p[0]), made.index(p[1])))
        merges.append(best)
        if best[0] + best[1] not in made:
            made.append(best[0] + best[1])
        new = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if w[i : i + 2] == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new[tuple(out)] = new.get(tuple(out), 0) + c
        words = new
    return merges


def test_learn_bpe_matches_brute_force_and_breaks_ties_by_age():
    from transformer.subwords import learn_bpe

    assert learn_bpe({"ab": 1, "cd": 1}, 1) == [("a", "b")]  # a tie: 'a' is older than 'c'
    assert learn_bpe({"cd": 2, "ab": 1}, 1) == [("c", "d")]  # counts first
    assert learn_bpe({"aaaa": 1}, 2) == [("a", "a"), ("aa", "aa")]  # overlapping pairs: left to right
    words = Counter(
        "der die das dem den ein eine einem einer Hund Hunde Hunden Hündin rennt rennen "
        "Männer Mann Frau Frauen spielen spielt Spiel aaa aaaa abab".split()
        * 3
        + ["Hund"] * 5
    )
    from transformer.subwords import byte_words

    counts = Counter(w for s, c in words.items() for w in byte_words(s) for _ in range(c))
    assert learn_bpe(counts, 60) == naive_bpe(counts, 60)


def test_readable_bpe_and_the_library_agree(train, data_dir):
    "The same merges in the same order, and the same pieces for every validation sentence (held out)."
    from transformer.subwords import Subwords, apply_bpe, byte_words, learn_bpe

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
    from transformer.subwords import Subwords

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
    from transformer.subwords import _BYTE_OF, BYTE_ALPHABET, byte_words, readable

    assert sorted(_BYTE_OF) == list(BYTE_ALPHABET) and sorted(_BYTE_OF.values()) == list(range(256))
    assert [readable(w) for w in byte_words("Ein Mann über der Straße")] == [
        "▁Ein",
        "▁Mann",
        "▁über",
        "▁der",
        "▁Straße",
    ]
    dog = byte_words("🐕")[0]  # a space and four bytes
    assert readable(dog) == "▁🐕" and readable(dog[:2]) == "▁\\xf0"


def test_pipelines_share_one_interface_and_survive_a_checkpoint(train):
    from transformer.data import Vocab, WordPipeline
    from transformer.subwords import SubwordPipeline, pipeline_from_state

    pairs = train[:2000]
    word, bpe = WordPipeline.learn(pairs), SubwordPipeline.learn(pairs, 1000)
    de, en = "Ein Mann mit einem Schutzhelm.", "A man with a hard hat."
    assert bpe.sizes == (1000, 1000) and bpe.shared and not word.shared
    assert word.sizes == (len(word.src_words), len(word.tgt_words))
    for pipe in (word, bpe):
        again = pipeline_from_state(json.loads(json.dumps(pipe.state())))
        assert type(again) is type(pipe) and again.sizes == pipe.sizes
        assert again.source_ids([de]) == pipe.source_ids([de]) and again.target_ids([en]) == pipe.target_ids([en])
        assert pipe.sentence(pipe.target_ids([en])[0] + [Vocab.eos_id, 9]) == en
    assert word.unseen("Ein ☃ Mann") == ["☃"] and bpe.unseen("Ein ☃ Mann") == []
    assert "".join(bpe.source_pieces(bpe.source_ids([de])[0])) == "▁" + de.replace(" ", "▁")
    # checkpoints from before sub-words keep their word vocabularies at the top of `extra`
    old = {"vocab": {"de": word.src_words.itos, "en": word.tgt_words.itos}, "src_chars": "abc"}
    assert isinstance(pipeline_from_state(old), WordPipeline)


def test_both_pipelines_satisfy_the_pipeline_protocol(train):
    """Every name the Pipeline protocol lists is on both pipelines, its methods take the same parameters, and an
    object without one of the names is not a Pipeline."""
    import inspect

    from transformer.data import Pipeline, WordPipeline
    from transformer.subwords import SubwordPipeline

    listed = set(Pipeline.__annotations__) | {n for n in vars(Pipeline) if not n.startswith("_")}
    assert listed == {
        "langs",
        "shared",
        "out_vocab",
        "sizes",
        "source_ids",
        "target_ids",
        "source_pieces",
        "target_pieces",
        "sentence",
        "unseen",
        "state",
    }
    methods = {n for n in listed if inspect.isfunction(vars(Pipeline).get(n))}
    pairs = train[:500]
    pipes = [
        WordPipeline.learn(pairs),
        SubwordPipeline.learn(pairs, 600),
        SubwordPipeline.learn(pairs, 600, output_layer="target"),
        SubwordPipeline.learn(pairs, 600, shared=False),
    ]
    for pipe in pipes:
        assert isinstance(pipe, Pipeline), type(pipe)
        assert all(hasattr(pipe, n) for n in listed)
        for n in methods:
            assert callable(getattr(pipe, n)), n
            assert (
                list(inspect.signature(getattr(pipe, n)).parameters)
                == list(inspect.signature(getattr(Pipeline, n)).parameters)[1:]
            ), (type(pipe), n)
        assert len(pipe.sizes) == 2 and isinstance(pipe.shared, bool) and pipe.langs == ("de", "en")

    def some(name):
        return {"langs": ("de", "en"), "shared": False, "out_vocab": None, "sizes": (1, 1)}.get(
            name, lambda self, *args: None
        )

    assert isinstance(type("Complete", (), {n: some(n) for n in listed})(), Pipeline)
    for missing in listed:
        lacking = type("Lacking", (), {n: some(n) for n in listed if n != missing})()
        assert not isinstance(lacking, Pipeline), missing


def test_targets_first_renumbers_without_changing_a_piece(train):
    from transformer.data import SPECIALS
    from transformer.subwords import Subwords, targets_first

    pairs = train[:3000]
    sw = Subwords.learn([s for p in pairs for s in p], 1500)
    english = [en for _, en in pairs]
    ordered, n = targets_first(sw, english)
    old_vocab, new_vocab = sw.library.get_vocab(), ordered.library.get_vocab()
    assert set(old_vocab) == set(new_vocab) and sorted(new_vocab.values()) == list(range(len(sw)))
    assert ordered.merges == sw.merges
    for i, special in enumerate(SPECIALS):
        assert new_vocab[special] == old_vocab[special] == i
    # exactly the pieces English uses come before n (brute force over the pieces, not the ids)
    used = {p for s in english for p in sw.pieces(s)}
    assert {p for p, i in new_vocab.items() if len(SPECIALS) <= i < n} == used
    assert n == len(SPECIALS) + len(used) < len(sw)
    # each group keeps its old order
    firsts = sorted((p for p, i in new_vocab.items() if len(SPECIALS) <= i < n), key=new_vocab.get)
    assert firsts == sorted(used, key=old_vocab.get)
    held_out = [en for _, en in train[3000:3500]] + [de for de, _ in train[3000:3500]] + ["Zwei 🐕 – °C"]
    for s in held_out:
        assert ordered.pieces(s) == sw.pieces(s)
        assert ordered.text(ordered.ids([s])[0]) == s


def test_a_pipeline_with_the_target_first_maps_what_it_cannot_write_to_unk(train):
    import pytest

    from transformer.subwords import SubwordPipeline, Subwords, pipeline_from_state

    pairs = train[:2000]
    pipe = SubwordPipeline.learn(pairs, 1000, output_layer="target")
    assert SubwordPipeline.learn(pairs, 1000).out_vocab is None and 4 < pipe.out_vocab < 1000
    assert all(i < pipe.out_vocab for ids in pipe.target_ids([en for _, en in pairs]) for i in ids)
    odd = "Ein Mann sagt ß und 🐕."
    src, tgt = pipe.source_ids([odd])[0], pipe.target_ids([odd])[0]
    outside = [i for i in src if i >= pipe.out_vocab]
    assert outside and len(tgt) == len(src)  # a German-only piece ...
    assert tgt == [i if i < pipe.out_vocab else Subwords.unk_id for i in src]  # ... is <unk> as a target
    again = pipeline_from_state(json.loads(json.dumps(pipe.state())))
    assert again.out_vocab == pipe.out_vocab and again.target_ids([odd]) == [tgt]
    old = {k: v for k, v in pipe.state().items() if k != "out_vocab"}  # saved before `outputs`
    assert pipeline_from_state(old).out_vocab is None
    older_key = {**old, "outputs": pipe.out_vocab}  # saved before issue 43's name
    assert pipeline_from_state(older_key).out_vocab == pipe.out_vocab
    with pytest.raises(ValueError, match="output_layer must be all or target"):
        SubwordPipeline.learn(pairs, 1000, output_layer="english")


def test_a_pipeline_with_a_vocabulary_per_language_learns_each_on_its_side_only(train):
    from transformer.data import Vocab
    from transformer.model import Transformer, TransformerConfig
    from transformer.subwords import SubwordPipeline, Subwords, pipeline_from_state

    pairs = train[:2000]
    pipe = SubwordPipeline.learn(pairs, 800, output_layer="target", shared=False)
    german = Subwords.learn([de for de, _ in pairs], 800)  # the references: one side each
    english = Subwords.learn([en for _, en in pairs], 800)
    assert not pipe.shared and pipe.sizes == (800, 800) and pipe.out_vocab is None
    assert pipe.subwords.merges == german.merges and pipe.target.merges == english.merges
    assert pipe.subwords.merges != pipe.target.merges
    de, en = "Ein Mann mit einem Schutzhelm 🐕.", "A man with a hard hat 🐕."
    assert pipe.source_ids([de]) == german.ids([de]) and pipe.target_ids([en]) == english.ids([en])
    assert pipe.sentence(pipe.target_ids([en])[0] + [Vocab.eos_id, 9]) == en
    for side, text in (("source", de[:-3]), ("target", en[:-3])):  # readable: without the emoji
        pieces = getattr(pipe, f"{side}_pieces")(getattr(pipe, f"{side}_ids")([text])[0])
        assert "".join(pieces) == "▁" + text.replace(" ", "▁")
    again = pipeline_from_state(json.loads(json.dumps(pipe.state())))
    assert not again.shared and again.target.merges == english.merges
    assert again.source_ids([de]) == pipe.source_ids([de]) and again.target_ids([en]) == pipe.target_ids([en])
    assert "target" not in SubwordPipeline.learn(pairs, 800).state()  # shared: one table saved
    model = Transformer(
        TransformerConfig(
            *pipe.sizes,
            d_model=16,
            n_layers=1,
            h=2,
            d_ff=32,
            share_embeddings=pipe.shared,
            out_vocab=pipe.out_vocab,
        )
    )
    assert model.src_embed is not model.tgt_embed  # two tables, output tied to English's
    assert model.generator.weight is model.tgt_embed.lut.weight
