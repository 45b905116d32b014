"""CTranslate2 (chapter 22): a converted model computes what the course's model computes.

Small random models, Post-LN and Pre-LN, one shared table or two, every output id or only the first
`out_vocab`, each with a sub-word pipeline learnt on a few made-up captions: the converted model's
greedy outputs are the course's `greedy_search` outputs (the independent implementation is the
reference), and its scores are their log-probabilities; int8 runs; without ctranslate2 installed,
the error says in one line how to get it. Without ctranslate2 the conversion tests are skipped (in
CI they fail: the dev extra installs it)."""

import importlib.util
import math
import sys

import pytest
import torch
from conftest import evaluate_model, skip_or_fail
from test_translator_input import assert_translator_interface

from transformer.data import Vocab
from transformer.generation import greedy_search
from transformer.model import Transformer, TransformerConfig
from transformer.subwords import SubwordPipeline
from transformer.translate import output_budget
from transformer.translators import InputError, MissingPackage, PyTorchTranslator

SUBJECTS = [
    ("Ein Mann", "A man"),
    ("Eine Frau", "A woman"),
    ("Ein Kind", "A child"),
    ("Zwei Hunde", "Two dogs"),
    ("Ein Mädchen", "A girl"),
]
VERBS = [("läuft", "runs"), ("sitzt", "sits"), ("spielt", "plays"), ("steht", "stands"), ("springt", "jumps")]
PLACES = [
    ("im Park.", "in the park."),
    ("auf der Straße.", "on the street."),
    ("am Strand.", "on the beach."),
    ("im Schnee.", "in the snow."),
]
PAIRS = [(f"{s} {v} {p}", f"{es} {ev} {ep}") for s, es in SUBJECTS for v, ev in VERBS for p, ep in PLACES]
GERMAN = [de for de, _ in PAIRS[::7]] + ["Ein Hund.", "Zwei Frauen spielen im Park am Strand im Schnee."]

# (name, pre_norm, one shared table, output layer): "all" ids, "target" (the pipeline's English pieces
# first, out_vocab set by it) or "first 250" (out_vocab set by hand, with two tables)
MODELS = [
    ("post-norm, shared, all ids", False, True, "all"),
    ("pre-norm, shared, out_vocab", True, True, "target"),
    ("pre-norm, two tables, all ids", True, False, "all"),
    ("post-norm, two tables, out_vocab", False, False, "first 250"),
]


@pytest.fixture(scope="module")
def ct2():
    if importlib.util.find_spec("ctranslate2") is None:
        skip_or_fail("ctranslate2 is not installed (pip install -e '.[dev]')")
    from transformer import ctranslate

    return ctranslate


def tiny_translator(pre_norm, shared, output_layer, seed=0):
    "A random Transformer (eval mode) with a pipeline learnt on PAIRS."
    pipeline = SubwordPipeline.learn(PAIRS, 300, "target" if output_layer == "target" else "all", shared=shared)
    out_vocab = {"all": None, "target": pipeline.out_vocab, "first 250": 250}[output_layer]
    torch.manual_seed(seed)
    cfg = TransformerConfig(
        *pipeline.sizes,
        d_model=32,
        n_layers=2,
        h=4,
        d_ff=64,
        dropout=0.0,
        max_len=64,
        pre_norm=pre_norm,
        share_embeddings=shared,
        out_vocab=out_vocab,
    )
    model = Transformer(cfg)
    with torch.no_grad():  # random LayerNorm parameters and biases, so that they count
        for name, p in model.named_parameters():
            if p.dim() == 1:
                p.normal_(1.0 if name.endswith("norm.weight") else 0.0, 0.2)
    return PyTorchTranslator(model, pipeline, "cpu")


@torch.no_grad()
def log_prob(model, src_ids, out_ids, ended):
    """log P(out_ids (+ <eos> if ended) | src_ids) under `model`, <pad> and <unk> banned as both
    searches ban them (their logits -inf before the softmax)."""
    tgt = [Vocab.bos_id] + out_ids
    logits = model(torch.tensor([src_ids]), torch.tensor([tgt]))[0].float()  # (len, vocab)
    logits[:, [Vocab.pad_id, Vocab.unk_id]] = -math.inf
    logp = logits.log_softmax(-1)
    targets = out_ids + [Vocab.eos_id] * ended
    return sum(logp[t, y].item() for t, y in enumerate(targets))


def gap_at_first_difference(model, src_ids, ours, theirs):
    "How far apart the course's logits put the two tokens chosen where the outputs first part."
    t = next(i for i, (a, b) in enumerate(zip(ours + [Vocab.eos_id], theirs + [Vocab.eos_id])) if a != b)
    with torch.no_grad():
        logits = model(torch.tensor([src_ids]), torch.tensor([[Vocab.bos_id] + ours[:t]]))[0, -1]
    mine, other = (ours + [Vocab.eos_id])[t], (theirs + [Vocab.eos_id])[t]
    return abs(logits[mine] - logits[other]).item()


@pytest.mark.parametrize("name, pre_norm, shared, output_layer", MODELS, ids=[m[0] for m in MODELS])
def test_the_converted_greedy_search_is_the_courses(ct2, tmp_path, name, pre_norm, shared, output_layer):
    translator = tiny_translator(pre_norm, shared, output_layer)
    model = translator.model
    fast = ct2.CTranslate2Translator(ct2.export_ctranslate2(translator, tmp_path / "ct2"))
    sources = [translator.input_ids(s) for s in GERMAN]
    hyps, scores = fast.search_with_scores(sources, beam_size=1)
    compared = 0
    for src_ids, theirs, score in zip(sources, hyps, scores):
        budget = output_budget(model.cfg.max_len, len(src_ids))
        ours = greedy_search(model, torch.tensor([src_ids]), Vocab.bos_id, Vocab.eos_id, budget, ban=(Vocab.unk_id,))[0]
        if ours != theirs:  # only where two logits are within rounding of each other
            assert gap_at_first_difference(model, src_ids, ours, theirs) < 1e-4, (ours, theirs)
            continue
        assert Vocab.unk_id not in theirs and Vocab.pad_id not in theirs and len(theirs) <= budget
        ended = len(theirs) < budget
        assert score == pytest.approx(log_prob(model, src_ids, theirs, ended), rel=1e-4, abs=1e-3)
        compared += 1
    assert compared >= len(sources) - 1
    assert fast.translate(GERMAN, beam_size=1) == [translator.pipeline.sentence(h) for h in hyps]


def test_every_variable_of_the_spec_gets_a_parameter_and_every_parameter_a_variable(ct2):
    translator = tiny_translator(True, False, "first 250")
    mapping = ct2.weight_map(translator.model)
    variables = [v for v, _, _ in mapping]
    assert len(variables) == len(set(variables))
    numbers = sum(a.size for _, _, a in mapping)
    model = translator.model
    # the table of positions goes in twice (encoder and decoder), the target table and the output
    # layer (tied) as their first out_vocab rows each
    expected = (
        sum(p.numel() for p in model.parameters())
        - model.tgt_embed.lut.weight.numel()
        + 2 * model.pos.pe.numel()
        + 2 * 250 * model.cfg.d_model
    )
    assert numbers == expected


def test_int8_runs_and_is_smaller(ct2, tmp_path):
    translator = tiny_translator(True, True, "target")
    folders = {q: ct2.export_ctranslate2(translator, tmp_path / str(q), q) for q in (None, "int8")}
    assert (folders["int8"] / "model.bin").stat().st_size < 0.5 * (folders[None] / "model.bin").stat().st_size
    weights = {k: v.clone() for k, v in translator.model.state_dict().items()}
    assert all(torch.equal(v, translator.model.state_dict()[k]) for k, v in weights.items())  # untouched
    sources = [translator.input_ids(s) for s in GERMAN]
    float32, int8 = (ct2.CTranslate2Translator(folders[q]) for q in (None, "int8"))
    for beam in (1, 4):
        exact, _ = float32.search_with_scores(sources, beam_size=beam)
        rounded, _ = int8.search_with_scores(sources, beam_size=beam)
        # 8-bit weights move the scores a little: most searches end on the same output
        same = sum(a == b for a, b in zip(exact, rounded))
        assert same >= 0.75 * len(sources), (beam, same)
        english = int8.translate(GERMAN, beam_size=beam)
        assert english == [translator.pipeline.sentence(ids) for ids in rounded]


def test_beam_search_keeps_the_budget_and_the_bans(ct2, tmp_path):
    translator = tiny_translator(False, True, "all", seed=1)
    fast = ct2.CTranslate2Translator(ct2.export_ctranslate2(translator, tmp_path / "ct2"))
    sources = [translator.input_ids(s) for s in GERMAN]
    hyps, scores = fast.search_with_scores(sources, beam_size=4)
    for src_ids, ids in zip(sources, hyps):
        assert len(ids) <= output_budget(translator.model.cfg.max_len, len(src_ids))
        assert Vocab.unk_id not in ids and Vocab.pad_id not in ids
    assert all(s <= 0 for s in scores)
    # <unk> made the likeliest output everywhere: banned, it never comes; allowed, it comes, and
    # greedy search is still the course's own with its ban lifted
    with torch.no_grad():
        out = translator.model.generator.weight  # tied to the target embedding
        out[Vocab.unk_id] = 3 * out.sum(0)
    fast = ct2.CTranslate2Translator(ct2.export_ctranslate2(translator, tmp_path / "unk"))
    banned, _ = fast.search_with_scores(sources, beam_size=1)
    allowed, _ = fast.search_with_scores(sources, beam_size=1, unk=True)
    assert not any(Vocab.unk_id in ids for ids in banned)
    assert all(Vocab.unk_id in ids for ids in allowed)
    assert [translator.pipeline.sentence(ids) for ids in allowed] == translator.translate_ids(sources, 1, unk=True)


def test_the_length_penalty_exponent_grows_as_gnmts_over_one_token(ct2):
    for alpha in (0.6, 1.5):
        for n in (2, 5, 14, 40):
            beta = ct2.length_penalty_exponent(alpha, n)
            assert (n / (n - 1)) ** beta == pytest.approx(((6 + n) / (5 + n)) ** alpha)


def test_without_ctranslate2_installed_the_error_says_how_to_get_it(monkeypatch, tmp_path):
    from transformer import ctranslate

    monkeypatch.setitem(sys.modules, "ctranslate2", None)  # import ctranslate2 now fails
    translator = tiny_translator(True, True, "all")
    for call in (
        lambda: ctranslate.export_ctranslate2(translator, tmp_path / "ct2"),
        lambda: ctranslate.CTranslate2Translator(tmp_path),
    ):
        with pytest.raises(MissingPackage) as error:  # not an InputError: no sentence is at fault
            call()
        assert not isinstance(error.value, InputError)
        message = str(error.value)
        assert len(message.splitlines()) == 1 and 'pip install "transformer[ctranslate2]"' in message
    assert not (tmp_path / "ct2").exists()


def test_the_ctranslate2_translator_has_the_translators_interface(ct2, tmp_path):
    translator = tiny_translator(True, True, "all")
    fast = ct2.CTranslate2Translator(ct2.export_ctranslate2(translator, tmp_path / "ct2"))
    assert_translator_interface(fast)
    assert fast.langs == translator.langs
    assert [fast.input_ids(s) for s in GERMAN] == [translator.input_ids(s) for s in GERMAN]
    with pytest.raises(InputError, match="the sentence is empty"):
        fast.translate(["Ein Hund.", " "])


def test_the_export_command_converts_a_model_folder(ct2, tmp_path):
    "transformer-export --model FOLDER --ctranslate2 DIR: a folder CTranslate2 loads, translating like the course."
    import subprocess

    from transformer.shipped import export_model

    translator = tiny_translator(True, True, "all")
    export_model(translator, tmp_path / "model", {"note": "untrained"})
    code = "import sys; from transformer.cli import export_main as m; sys.exit(m())"
    r = subprocess.run(
        [sys.executable, "-c", code, "--model", tmp_path / "model", "--ctranslate2", tmp_path / "ct2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert f"wrote {tmp_path / 'ct2'}" in r.stdout and (tmp_path / "ct2" / "model.bin").is_file()
    from transformer.ctranslate import CTranslate2Translator
    from transformer.shipped import load_translator

    loaded = load_translator(tmp_path / "model", "cpu")
    sentences = ["Ein Hund rennt.", "Zwei Männer spielen im Park."]
    assert CTranslate2Translator(tmp_path / "ct2").translate(sentences, beam_size=1) == loaded.translate(
        sentences, beam_size=1
    )


def test_evaluate_scores_a_ctranslate2_folder_alone(ct2, tmp_path, data_dir):
    "transformer-evaluate --model CT2_FOLDER: the folder alone (no PyTorch model), greedy as the course's translator."

    from transformer.data import load_split

    translator = tiny_translator(True, True, "target")
    folder = ct2.export_ctranslate2(translator, tmp_path / "ct2")
    fast = ct2.CTranslate2Translator(folder)
    assert fast.langs == translator.langs and fast.alpha == translator.alpha
    scores, text = evaluate_model(folder, data_dir, tmp_path / "hyps", "--limit", 6, "--beam", 1)
    assert scores["runtime"] == "ctranslate2" and scores["sentences"] == 6 and 0 <= scores["chrf"] <= 100
    german = [de for de, _ in load_split("val", data_dir)[:6]]
    expected = translator.translate_ids(translator.source_ids(german), beam_size=1)
    assert text.splitlines() == expected
