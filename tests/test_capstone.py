"""The capstone reads the learner's own pieces, wires them together, and names the piece that breaks learning.

The solutions' pieces reaching the package's accuracy is tests/test_grader.py's full-marks test of
solutions/09_capstone.ipynb (it trains both models). Here: the wiring, a piece that is not answered, and a
planted bug found by swapping pieces (the slow one: it trains three small models).
"""
import shutil
from pathlib import Path

import nbformat
import pytest
import torch

from transformer.encoder import LayerOptions
from transformer_course.grader import capstone, notebook
from transformer_course.grader.grade import grade

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 20.0


def question_cells(nb):
    "{question number: code cell} of a notebook."
    return {int(m.group(1)): cell for cell in nb.cells if cell.cell_type == "code"
            for m in [notebook.QUESTION_RE.match(notebook.first_line(cell.source))] if m}


def course(tmp_path, source="solutions"):
    "A folder with exercises 1 to 5 from `source` and the capstone's solution."
    folder = tmp_path / "ex"
    folder.mkdir()
    for path in (ROOT / source).glob("0[1-5]_*.ipynb"):
        shutil.copy(path, folder)
    shutil.copy(ROOT / "solutions" / "09_capstone.ipynb", folder)
    return folder


def plant(folder, nn, number, body):
    "Replace the code after question `number`'s first line in the folder's exercise `nn`."
    [path] = folder.glob(f"{nn}_*.ipynb")
    nb = nbformat.read(str(path), as_version=4)
    cell = question_cells(nb)[number]
    cell.source = cell.source.split("\n", 1)[0] + "\n" + body
    nbformat.write(nb, str(path))


def test_the_pieces_call_each_other(tmp_path):
    folder = course(tmp_path)
    plant(folder, "01", 3, "def scaled_dot_product_attention(query, key, value, mask=None):\n"
                           "    raise LookupError('the learner attention ran')\n")
    plant(folder, "03", 1, "def sinusoidal_encoding(max_len, d_model):\n    return torch.full((max_len, d_model), 7.0)\n")
    pieces = capstone.load_pieces(folder)
    x = torch.randn(2, 3, 16)
    with pytest.raises(LookupError, match="learner attention"):     # exercise 2's class calls exercise 1's function
        pieces["MultiHeadAttention"](16, 4)(x, x, x)
    pe = pieces["PositionalEncoding"](16, 0.0, 10)                    # exercise 3's class uses exercise 3's table
    assert torch.equal(pe(torch.zeros(1, 4, 16)), torch.full((1, 4, 16), 7.0))
    opts = LayerOptions(16, 4, 32, 0.1)
    enc, dec = pieces["EncoderLayer"](opts), pieces["DecoderLayer"](opts)
    for layer in (enc, dec):                                          # layers are built from the learner's parts
        assert type(layer.self_attn) is pieces["MultiHeadAttention"]
        assert type(layer.ffn) is pieces["FeedForward"]
        assert all(type(s) is pieces["SublayerConnection"] for s in layer.sublayers)
    assert type(dec.cross_attn) is pieces["MultiHeadAttention"]
    # a swapped piece comes from the package, and so do the pieces built inside it
    swapped = capstone.load_pieces(folder, use_package={"EncoderLayer"})
    assert swapped["EncoderLayer"] is capstone.package_pieces()["EncoderLayer"]
    assert swapped["MultiHeadAttention"] is not capstone.package_pieces()["MultiHeadAttention"]


def test_a_piece_not_answered_is_named(tmp_path):
    folder = course(tmp_path)
    shutil.copy(ROOT / "exercises" / "02_multi_head.ipynb", folder)   # the learner has not done exercise 2
    result = grade(folder / "09_capstone.ipynb", timeout=TIMEOUT, only=[2])
    [q] = result["questions"]
    assert not q["passed"] and q["reason"] == "one of your pieces is not ready", q
    assert "exercise 2, question 3 (`MultiHeadAttention`) is not answered yet" in q["hint"], q["hint"]
    (folder / "04_encoder.ipynb").unlink()                             # ... nor kept exercise 4
    with pytest.raises(capstone.NotAnswered, match="exercise 4, question 1 .* has no notebook"):
        capstone.load_pieces(folder, use_package={"MultiHeadAttention"})


@pytest.mark.e2e
def test_a_planted_bug_is_named_as_the_culprit(tmp_path):
    "Attention that ignores its mask lets the decoder read the answer in training: the model cannot decode."
    folder = course(tmp_path)
    plant(folder, "01", 3, "def scaled_dot_product_attention(query, key, value, mask=None):\n"
                           "    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))\n"
                           "    return scores.softmax(dim=-1) @ value\n")
    result = grade(folder / "09_capstone.ipynb", timeout=TIMEOUT, only=[1, 2])
    q1, q2 = result["questions"]
    assert q1["passed"], q1                          # the assembly is right: question 1 uses the package's pieces
    assert not q2["passed"] and q2["reason"].startswith("your model reaches"), q2
    assert "look at exercise 1, question 3 (`scaled_dot_product_attention`)" in q2["hint"], q2["hint"]


def test_the_capstone_cell_reads_question_one_from_the_graded_notebook(tmp_path):
    "Question 2 trains question 1's class: a notebook whose question 1 is a stub is not answered."
    folder = course(tmp_path)
    shutil.copy(ROOT / "exercises" / "09_capstone.ipynb", folder)
    setup, sources = notebook.cells(notebook.read(folder / "09_capstone.ipynb"))
    assert "raise NotImplementedError()" in sources[1] and "capstone.compare" in sources[2]
    result = grade(folder / "09_capstone.ipynb", timeout=TIMEOUT, only=[2])
    assert result["questions"][0]["reason"] == "not answered yet"
