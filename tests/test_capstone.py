"""The capstone reads the learner's own pieces, wires them together, and names the piece that breaks learning.

The solutions' pieces reaching the package's accuracy is tests/test_grader.py's full-marks test of
solutions/capstone.ipynb (it trains the learner's model, and the package's unless its run is cached). Here:
the wiring, a piece that is not answered, the cache of the package's run, and a planted bug found by swapping
pieces (the slow one: it trains two or three small models).
"""

import json
import multiprocessing
import shutil
import time
from pathlib import Path

import nbformat
import pytest
import torch

from transformer.encoder import LayerOptions
from transformer_course.grader import capstone, notebook, run_cache
from transformer_course.grader.grade import grade

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 20.0


def question_cells(nb):
    "{question number: code cell} of a notebook."
    return {
        int(m.group(1)): cell
        for cell in nb.cells
        if cell.cell_type == "code"
        for m in [notebook.QUESTION_RE.match(notebook.first_line(cell.source))]
        if m
    }


def course(tmp_path, source="solutions"):
    "A folder with exercises 1 to 5 from `source` and the capstone's solution."
    folder = tmp_path / "ex"
    folder.mkdir()
    for path in (ROOT / source).glob("0[1-5]_*.ipynb"):
        shutil.copy(path, folder)
    shutil.copy(ROOT / "solutions" / "capstone.ipynb", folder)
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
    plant(
        folder,
        "01",
        3,
        "def scaled_dot_product_attention(query, key, value, mask=None):\n"
        "    raise LookupError('the learner attention ran')\n",
    )
    plant(
        folder,
        "03",
        1,
        "def sinusoidal_encoding(max_len, d_model):\n    return torch.full((max_len, d_model), 7.0)\n",
    )
    pieces = capstone.load_pieces(folder)
    x = torch.randn(2, 3, 16)
    with pytest.raises(LookupError, match="learner attention"):  # exercise 2's class calls exercise 1's function
        pieces["MultiHeadAttention"](16, 4)(x, x, x)
    pe = pieces["PositionalEncoding"](16, 0.0, 10)  # exercise 3's class uses exercise 3's table
    assert torch.equal(pe(torch.zeros(1, 4, 16)), torch.full((1, 4, 16), 7.0))
    opts = LayerOptions(16, 4, 32, 0.1)
    enc, dec = pieces["EncoderLayer"](opts), pieces["DecoderLayer"](opts)
    for layer in (enc, dec):  # layers are built from the learner's parts
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
    shutil.copy(ROOT / "exercises" / "02_multi_head.ipynb", folder)  # the learner has not done exercise 2
    result = grade(folder / "capstone.ipynb", timeout=TIMEOUT, only=[2])
    [q] = result["questions"]
    assert not q["passed"] and q["reason"] == "one of your pieces is not ready", q
    assert "exercise 2, question 3 (`MultiHeadAttention`) is not answered yet" in q["hint"], q["hint"]
    (folder / "04_encoder.ipynb").unlink()  # ... nor kept exercise 4
    with pytest.raises(capstone.NotAnswered, match="exercise 4, question 1 .* has no notebook"):
        capstone.load_pieces(folder, use_package={"MultiHeadAttention"})


@pytest.mark.e2e
def test_a_planted_bug_is_named_as_the_culprit(tmp_path):
    "Attention that ignores its mask lets the decoder read the answer in training: the model cannot decode."
    folder = course(tmp_path)
    plant(
        folder,
        "01",
        3,
        "def scaled_dot_product_attention(query, key, value, mask=None):\n"
        "    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))\n"
        "    return scores.softmax(dim=-1) @ value\n",
    )
    result = grade(folder / "capstone.ipynb", timeout=TIMEOUT, only=[1, 2])
    q1, q2 = result["questions"]
    assert q1["passed"], q1  # the assembly is right: question 1 uses the package's pieces
    assert not q2["passed"] and q2["reason"].startswith("your model reaches"), q2
    assert "look at exercise 1, question 3 (`scaled_dot_product_attention`)" in q2["hint"], q2["hint"]


def test_the_capstone_cell_reads_question_one_from_the_graded_notebook(tmp_path):
    "Question 2 trains question 1's class: a notebook whose question 1 is a stub is not answered."
    folder = course(tmp_path)
    shutil.copy(ROOT / "exercises" / "capstone.ipynb", folder)
    setup, sources = notebook.cells(notebook.read(folder / "capstone.ipynb"))
    assert "raise NotImplementedError()" in sources[1] and "capstone.compare" in sources[2]
    result = grade(folder / "capstone.ipynb", timeout=TIMEOUT, only=[2])
    assert result["questions"][0]["reason"] == "not answered yet"


def test_the_package_run_is_computed_once_for_what_decides_it(tmp_path, monkeypatch):
    "package_accuracy trains the package's model once per key; the package's code, the seed or the threads: again."
    import transformer

    monkeypatch.setattr(run_cache, "cache_dir", lambda: tmp_path / "cache")
    runs = []
    monkeypatch.setattr(
        capstone, "train_and_score", lambda make, seed=0, steps=None: runs.append(seed) or 0.5 + seed / 10
    )
    assert [capstone.package_accuracy(0), capstone.package_accuracy(0), capstone.package_accuracy(1)] == [
        0.5,
        0.5,
        0.6,
    ]
    assert runs == [0, 1]
    [stored] = [
        json.loads(p.read_text())
        for p in (tmp_path / "cache").glob("*.json")
        if json.loads(p.read_text())["key"]["seed"] == 0
    ]
    assert stored["value"] == 0.5 and stored["key"] == capstone.reference_key(0)
    # the key follows the package's source, file by file (nbdev's index aside), and the threads
    package = tmp_path / "transformer"
    shutil.copytree(Path(transformer.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(transformer, "__file__", str(package / "__init__.py"))
    key = capstone.reference_key(0)
    assert (
        set(key["package"]) >= {"model.py", "loop.py", "training.py", "generation.py"}
        and "_modidx.py" not in key["package"]
    )
    (package / "_modidx.py").write_text("d = {}\n")
    assert capstone.reference_key(0) == key
    (package / "loop.py").write_text((package / "loop.py").read_text() + "\n# changed\n")
    assert capstone.reference_key(0) != key
    assert capstone.package_accuracy(0) == 0.5 and runs == [0, 1, 0]
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(threads + 1)
        assert capstone.reference_key(0)["threads"] == threads + 1
    finally:
        torch.set_num_threads(threads)
    # a record that does not hold this key (another key under the name, a broken file) is computed again
    for p in (tmp_path / "cache").glob("*.json"):
        p.write_text("{broken")
    assert capstone.package_accuracy(1) == 0.6 and runs == [0, 1, 0, 1]


def _slow_value(folder, log):
    "In another process: the cached value of one key, whose computation takes a while and is logged."
    run_cache.cache_dir = lambda: Path(folder)

    def compute():
        with open(log, "a") as f:
            f.write("computed\n")
        time.sleep(1.0)
        return 0.75

    return run_cache.cached({"run": "test"}, compute)


def test_two_processes_that_need_the_run_at_once_compute_it_once(tmp_path):
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    log = tmp_path / "log.txt"
    with ctx.Pool(2) as pool:
        values = pool.starmap(_slow_value, [(str(tmp_path / "cache"), str(log))] * 2)
    assert values == [0.75, 0.75]
    assert log.read_text() == "computed\n"
