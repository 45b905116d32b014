"""The model as ONNX (chapter 21): the graphs compute what PyTorch's `Transformer.forward` computes (the
reference, not the graph wrappers), for lengths and batches the export never saw, with padding; the ONNX greedy loop
gives the course's `greedy_search` outputs; the int8 copy is smaller and runs; `transformer-export --onnx` writes and
checks the files, and without onnx installed it says how to get it, in one line."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed (pip install -e '.[dev]')")
pytest.importorskip("onnxscript", reason="the onnx extra is not installed (pip install -e '.[dev]')")
import onnxruntime  # noqa: E402
from conftest import evaluate_model  # noqa: E402
from test_translator_input import assert_translator_interface  # noqa: E402

from transformer import onnx_export  # noqa: E402
from transformer.attention import padding_mask  # noqa: E402
from transformer.checkpoint import FormatError  # noqa: E402
from transformer.generation import greedy_search  # noqa: E402
from transformer.model import Transformer, TransformerConfig  # noqa: E402
from transformer.onnx_export import (
    OnnxTranslator,
    compare_with_pytorch,
    export_checked,
    export_onnx,  # noqa: E402
    page_files,
    read_onnx_spec,
)
from transformer.shipped import export_model  # noqa: E402
from transformer.subwords import SubwordPipeline  # noqa: E402
from transformer.training import BOS, EOS, PAD, UNK  # noqa: E402
from transformer.translate import output_budget  # noqa: E402
from transformer.translators import InputError, PyTorchTranslator  # noqa: E402

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
SHAPES = {
    "pre-norm, shared, out_vocab": dict(pre_norm=True, share_embeddings=True, out_vocab=40),
    "post-norm, separate tables": dict(pre_norm=False, share_embeddings=False),
}


def random_model(seed=0, **kw):
    torch.manual_seed(seed)
    cfg = TransformerConfig(60, 60, d_model=32, n_layers=2, h=4, d_ff=64, dropout=0.0, max_len=64, **kw)
    return Transformer(cfg).eval()


def sessions(folder, spec, kind="float32"):
    files = spec["files"][kind]
    return [
        onnxruntime.InferenceSession(folder / files[n], providers=["CPUExecutionProvider"])
        for n in ("encoder", "decoder")
    ]


@pytest.fixture(scope="module", params=list(SHAPES))
def exported(request, tmp_path_factory):
    model = random_model(**SHAPES[request.param])
    folder = tmp_path_factory.mktemp("onnx")
    return model, folder, export_onnx(model, folder)


@pytest.mark.e2e  # its fixture exports two models' graphs (seconds each): not in make quicktest
def test_graphs_compute_the_models_forward_pass_at_unseen_shapes(exported):
    "Batches of 1 and 3, lengths 1 to 17, the second source padded: memory, logits of the last position, and each"
    "cross-attention row a distribution over the real source positions only."
    model, folder, spec = exported
    encoder, decoder = sessions(folder, spec)
    gen = torch.Generator().manual_seed(1)
    for batch, len_s, len_t in [(1, 1, 1), (3, 9, 4), (1, 17, 12), (3, 5, 17)]:
        src = torch.randint(4, 60, (batch, len_s), generator=gen)
        if batch > 1 and len_s > 2:
            src[1, -2:] = PAD  # padding the graph must mask
        tgt = torch.cat([torch.full((batch, 1), BOS), torch.randint(4, 40, (batch, len_t - 1), generator=gen)], 1)
        cross = model.decoder.layers[-1].cross_attn
        cross.store_weights = True  # chapter 2's switch, in PyTorch
        try:
            with torch.no_grad():
                memory = model.encode(src, padding_mask(src, PAD))
                expected = model(src, tgt)[:, -1]  # Transformer.forward, masks of its own
            expected_attention = cross.weights[:, :, -1]  # the last target position's row
        finally:
            cross.store_weights = False
        got_memory = encoder.run(None, {"src": src.numpy()})[0]
        real = padding_mask(src, PAD)[:, 0, 0]  # rows at padded positions are never read
        np.testing.assert_allclose(got_memory[real.numpy()], memory[real].numpy(), atol=1e-4)
        logits, attention = decoder.run(None, {"tgt": tgt.numpy(), "memory": got_memory, "src": src.numpy()})
        assert logits.shape == (batch, model.cfg.out_vocab or model.cfg.tgt_vocab)
        np.testing.assert_allclose(logits, expected.numpy(), atol=1e-4)
        assert attention.shape == (batch, model.cfg.h, len_s)
        np.testing.assert_allclose(attention, expected_attention.numpy(), atol=1e-5)
        np.testing.assert_allclose(attention.sum(-1), 1.0, atol=1e-5)
        assert (attention[~real.numpy()[:, None, :].repeat(model.cfg.h, 1)] == 0).all()


@pytest.mark.e2e  # its fixture exports two models' graphs (seconds each): not in make quicktest
def test_int8_copies_are_smaller_and_close(exported):
    "(A toy model: the graph itself weighs about as much as its weights; the shipped one shrinks 3.6 times, chapter 21.)"
    model, folder, spec = exported
    for name in ("encoder", "decoder"):
        assert (folder / spec["files"]["int8"][name]).stat().st_size < 0.8 * (folder / f"{name}.onnx").stat().st_size
    src = torch.tensor([[5, 6, 7, 8, EOS]])
    encoder, decoder = sessions(folder, spec, "int8")
    memory = encoder.run(None, {"src": src.numpy()})[0]
    logits, _ = decoder.run(None, {"tgt": np.array([[BOS, 9]]), "memory": memory, "src": src.numpy()})
    with torch.no_grad():
        expected = model(src, torch.tensor([[BOS, 9]]))[:, -1].numpy()
    assert np.abs(logits - expected).max() < 0.1 * np.abs(expected).max()  # 8 bits: close, not equal


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    "A tiny random translator's model folder (chapter 20) and its ONNX folder with tokenizer.json."
    pipeline = SubwordPipeline.learn(list(zip(GERMAN, ENGLISH)) * 4, vocab_size=300)
    torch.manual_seed(0)
    cfg = TransformerConfig(
        *pipeline.sizes,
        d_model=32,
        n_layers=2,
        h=4,
        d_ff=64,
        share_embeddings=True,
        pre_norm=True,
        max_len=256,
    )
    translator = PyTorchTranslator(Transformer(cfg), pipeline)
    model_dir, onnx_dir = tmp_path_factory.mktemp("model"), tmp_path_factory.mktemp("onnx")
    export_model(translator, model_dir, {"note": "untrained"})
    export_onnx(translator.model, onnx_dir, int8=False)
    (onnx_dir / "tokenizer.json").write_text((model_dir / "tokenizer.json").read_text())
    return translator, model_dir, onnx_dir


def test_the_onnx_greedy_loop_is_the_courses_greedy_search(folders):
    "Ids from tokenizer.json alone, outputs equal to greedy_search with its cache, <unk> banned like the course."
    translator, _, onnx_dir = folders
    onnx = OnnxTranslator(onnx_dir)
    for sentence in GERMAN + ["Ein Mann.", "Zwei Hunde spielen im Schnee."]:
        src_ids = onnx.input_ids(sentence)
        assert src_ids == translator.input_ids(sentence)
        ids, logits, attention = onnx.greedy(src_ids)
        src = torch.tensor([src_ids])
        expected = greedy_search(
            translator.model,
            src,
            BOS,
            EOS,
            output_budget(translator.model.cfg.max_len, len(src_ids)),
            ban=(UNK,),
        )[0]
        assert ids == list(expected)
        assert UNK not in ids and len(logits) == len(attention) == len(ids) + (
            len(ids) < output_budget(onnx.cfg.max_len, len(src_ids))
        )
        assert onnx.translate([sentence]) == [translator.pipeline.sentence(ids)]
    check = compare_with_pytorch(translator, onnx, GERMAN)
    assert check["same"] == len(GERMAN) and check["largest_logit_difference"] < 1e-4


def test_bad_input_is_refused(folders):
    "The rules of chapter 10's check_source (tests/test_translator_input.py compares them with the page's)."
    onnx = OnnxTranslator(folders[2])
    with pytest.raises(InputError, match="the sentence is empty"):
        onnx.input_ids("  ")
    with pytest.raises(InputError, match="maximum of 255"):
        onnx.input_ids("Hund " * 300)
    with pytest.raises(InputError, match="2001 characters, more than the maximum of 2000"):
        onnx.input_ids("a" * 2001)


def test_the_onnx_translator_has_the_translators_interface_and_searches_greedily_only(folders):
    translator, _, onnx_dir = folders
    onnx = OnnxTranslator(onnx_dir)
    assert_translator_interface(onnx)
    assert onnx.langs == translator.langs
    sources = [onnx.input_ids(s) for s in GERMAN]
    assert onnx.translate(GERMAN) == onnx.translate_ids(sources) == translator.translate(GERMAN, beam_size=1)
    with pytest.raises(InputError) as error:
        onnx.translate(GERMAN, beam_size=4)
    assert str(error.value) == "beam size 4: the ONNX translator searches greedily only (beam size 1)"


@pytest.mark.e2e  # exports graphs of its own (seconds each): not in make quicktest
def test_unk_is_banned_unless_allowed(folders, tmp_path):
    "<unk> made the likeliest output: banned, it never comes; allowed, it comes, as in greedy_search without the ban."
    model = random_model(share_embeddings=False)
    with torch.no_grad():
        model.generator.weight[UNK] = 3 * model.generator.weight.sum(0)
    export_onnx(model, tmp_path, int8=False)
    (tmp_path / "tokenizer.json").write_text((folders[2] / "tokenizer.json").read_text())
    onnx, src_ids = OnnxTranslator(tmp_path), [5, 6, 7, EOS]
    budget = output_budget(model.cfg.max_len, len(src_ids))
    for unk, ban in ((False, (UNK,)), (True, ())):
        ids = onnx.greedy(src_ids, unk)[0]
        assert ids == list(greedy_search(model, torch.tensor([src_ids]), BOS, EOS, budget, ban=ban)[0])
        assert (UNK in ids) == unk
    assert onnx.translate_ids([src_ids], unk=True) != onnx.translate_ids([src_ids])


def test_onnx_json_of_another_format_is_refused(folders, tmp_path):
    spec = read_onnx_spec(folders[2])
    assert spec["format"] == onnx_export.ONNX_FORMAT and spec["langs"] == ["de", "en"]
    (tmp_path / "onnx.json").write_text(json.dumps({**spec, "format": onnx_export.ONNX_FORMAT + 1}))
    for read in (read_onnx_spec, OnnxTranslator):
        with pytest.raises(FormatError, match=r"onnx.json: format 2, this version reads 1 \(export it again\)"):
            read(tmp_path)


@pytest.mark.e2e  # exports graphs of its own (seconds each): not in make quicktest
def test_export_checked_keeps_the_check_and_refuses_graphs_that_differ(folders, tmp_path, monkeypatch, capsys):
    "The acceptance rule of transformer-export --onnx: float32 the same as PyTorch on every sentence, or no export."
    translator, model_dir, _ = folders
    monkeypatch.setattr(onnx_export, "load_split", lambda *a, **k: list(zip(GERMAN, ENGLISH)))
    spec = export_checked(translator, model_dir, tmp_path / "good")
    assert read_onnx_spec(tmp_path / "good") == spec and (tmp_path / "good" / "tokenizer.json").is_file()
    served = page_files(spec)  # what the book's page loads
    assert sorted(served) == ["decoder.int8.onnx", "encoder.int8.onnx", "onnx.json", "tokenizer.json"]
    assert all((tmp_path / "good" / name).is_file() for name in served)
    assert spec["checked"]["float32"]["same"] == len(GERMAN) and set(spec["checked"]) == {
        "sentences",
        "float32",
        "int8",
    }
    assert f"ONNX float32: the same greedy translation as PyTorch for {len(GERMAN)} of {len(GERMAN)}" in (
        capsys.readouterr().out
    )

    def export_again(model, folder, **kw):  # "good"'s graphs, not exported again (seconds)
        shutil.copytree(tmp_path / "good", folder, dirs_exist_ok=True)
        spec = {k: v for k, v in read_onnx_spec(folder).items() if k != "checked"}
        (Path(folder) / "onnx.json").write_text(json.dumps(spec))  # as export_onnx leaves it
        return spec

    monkeypatch.setattr(onnx_export, "export_onnx", export_again)
    for bad in (
        {"same": len(GERMAN) - 1, "largest_logit_difference": 0.0},
        {"same": len(GERMAN), "largest_logit_difference": 1e-3},
    ):
        monkeypatch.setattr(onnx_export, "compare_with_pytorch", lambda *a, bad=bad: {"sentences": len(GERMAN), **bad})
        with pytest.raises(ValueError, match="the float32 graphs do not compute what PyTorch computes"):
            export_checked(translator, model_dir, tmp_path / "bad")
        assert "checked" not in read_onnx_spec(tmp_path / "bad")  # export_onnx's file, not the checked one


def run_export(*args):
    code = "import sys; from transformer.cli import export_main as m; sys.exit(m())"
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"OMP_NUM_THREADS": "1", **__import__("os").environ},
    )


@pytest.mark.e2e
def test_export_command_writes_and_checks_onnx(folders, tmp_path, data_dir):
    _, model_dir, _ = folders
    r = run_export("--model", model_dir, "--onnx", tmp_path / "onnx", "--data", data_dir)
    assert r.returncode == 0, r.stderr
    spec = json.loads((tmp_path / "onnx" / "onnx.json").read_text())
    assert spec["checked"]["float32"]["sentences"] == 100 and spec["checked"]["float32"]["same"] == 100
    assert spec["checked"]["float32"]["largest_logit_difference"] < 1e-3
    assert "same greedy translation as PyTorch for 100 of 100" in r.stdout
    assert {"encoder.onnx", "decoder.onnx", "encoder.int8.onnx", "decoder.int8.onnx", "tokenizer.json"} <= {
        p.name for p in (tmp_path / "onnx").iterdir()
    }


def test_export_command_usage_errors(tmp_path):
    assert "nothing to do" in run_export().stderr
    assert "CHECKPOINT and FOLDER" in run_export("only-a-checkpoint.pt").stderr


def test_without_onnx_installed_the_command_says_how_to_install_it(folders, tmp_path):
    "onnx hidden from the interpreter: one line naming the extra."
    code = "import sys; sys.modules['onnxscript'] = None; from transformer.cli import export_main as m; sys.exit(m())"
    r = subprocess.run(
        [sys.executable, "-c", code, "--model", folders[1], "--onnx", tmp_path / "x"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and 'pip install "transformer[onnx]"' in lines[0], r.stderr


def test_evaluate_scores_an_onnx_folder_through_the_interface(folders, data_dir, tmp_path):
    "transformer-evaluate --model ONNX_FOLDER scores the graphs alone, as it scores the PyTorch folder (greedy)."
    _, model_dir, onnx_dir = folders
    torch_json, torch_text = evaluate_model(model_dir, data_dir, tmp_path / "torch", "--limit", 5, "--beam", 1)
    onnx_json, onnx_text = evaluate_model(onnx_dir, data_dir, tmp_path / "onnx", "--limit", 5, "--beam", 1)
    assert onnx_json["runtime"] == "onnxruntime" and onnx_json["model"] == str(onnx_dir)
    assert onnx_text == torch_text and len(onnx_text.splitlines()) == 5
    for key in ("bleu", "chrf", "bleu_tokenized_lc", "sentences"):
        assert onnx_json[key] == torch_json[key], key
    from transformer.cli import evaluate_main  # a beam: the ONNX translator refuses it in one line

    with pytest.raises(SystemExit) as e:
        evaluate_main(
            [
                "--model",
                str(onnx_dir),
                "--data",
                str(data_dir),
                "--split",
                "val",
                "--limit",
                "2",
                "--output",
                str(tmp_path / "beam.en"),
            ]
        )
    assert e.value.code == 1
