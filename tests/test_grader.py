"""The grader can be trusted: right answers get every point, wrong ones lose exactly their question's.

Most tests grade in this process through the grader's Python API
(`transformer_course.grader.grade.grade`, which still forks one process per question); the
command line is run where it is the point (exit codes, the printed table, --hints, --timeout,
--json, `check`). Nothing here writes to the repository: edited notebooks live in pytest's tmp_path.

Wrong answers are files in tests/wrong_answers/, named NN_qK_what.py: the whole code cell of
question K of solutions/NN_*.ipynb, first line (the `# Question K ...` header) included, second
line `# WRONG: why`. A new file there is a new test. tests/right_answers/ holds correct answers
written differently from the solution (einsum, loops, numpy numbers, ...), in the same format
with `# RIGHT: how`: each must keep its question's full points.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from transformer_course.grader import build, notebook
from transformer_course.grader.grade import grade, table
from transformer_course.grader.questions import NOTEBOOKS, chapter, number

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
WRONG = sorted((ROOT / "tests" / "wrong_answers").glob("*.py"))
RIGHT = sorted((ROOT / "tests" / "right_answers").glob("*.py"))
TIMEOUT = 20.0  # per question; generous on a busy machine, the tests below never come close


# ---------------------------------------------------------------- helpers
def solution(nn):
    "solutions/<exercise>.ipynb for an exercise's number ('01', '09_1') or name ('capstone')."
    [path] = [p for p in SOLUTIONS if nn in (p.stem, number(p.stem))]
    return path


def exercise_of(path):
    "The exercise a solution, or a file of tests/wrong_answers or right_answers, belongs to: '01', '09_1', 'capstone'."
    return number(path.stem) if path.suffix == ".ipynb" else re.match(r"(.+?)_q\d+_", path.name).group(1)


def question_cells(nb):
    "{question number: code cell} of a notebook."
    found = {}
    for cell in nb.cells:
        m = notebook.QUESTION_RE.match(notebook.first_line(cell.source)) if cell.cell_type == "code" else None
        if m:
            found.setdefault(int(m.group(1)), cell)
    return found


def replace_cell(solution_path, number, body, tmp_path, tag, header=True):
    """A copy of a solution notebook in tmp_path with question `number`'s code replaced by `body`.

    With header=True, `body` comes after the cell's own first line (`# Question N (...)`);
    with header=False, `body` is the whole cell."""
    nb = nbformat.read(str(solution_path), as_version=4)
    cell = question_cells(nb)[number]
    cell.source = (cell.source.split("\n", 1)[0] + "\n" + body) if header else body
    out = tmp_path / f"{solution_path.stem}__{tag}.ipynb"  # keeps the NN_ prefix, metadata says the chapter too
    nbformat.write(nb, str(out))
    return out


def points(result):
    return {q["number"]: q["points"] for q in result["questions"]}


def full_marks(nn):
    _, questions = chapter(nn)
    return {q.number: q.points for q in questions}


def solution_lines(path):
    "The solution code of a notebook: stripped lines between BEGIN and END SOLUTION that occur nowhere else."
    inside, outside, block = set(), set(), False
    for cell in nbformat.read(str(path), as_version=4).cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.split("\n"):
            if build.BEGIN.match(line):
                block = True
            elif build.END.match(line):
                block = False
            elif line.strip():
                (inside if block else outside).add(line.strip())
    return {l for l in inside - outside if len(l) > 12}


def cli(*args, timeout=120):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "transformer_course.grader", *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# ---------------------------------------------------------------- 1, 2: solutions full, exercises zero
# (the capstone's full marks train two models for minutes: e2e, which `make quicktest` skips)
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.e2e) if p.stem == "capstone" else p for p in SOLUTIONS],
    ids=lambda p: p.stem,
)
def test_solution_scores_full_marks(path):
    result = grade(path, timeout=TIMEOUT)
    misses = {q["number"]: f"{q['reason']}: {q['hint']}" for q in result["questions"] if not q["passed"]}
    assert not misses, misses
    assert result["score"] == result["max_score"] == sum(full_marks(path.stem).values())


@pytest.mark.parametrize("path", [ex for _, ex in build.pairs()], ids=lambda p: p.stem)
def test_untouched_exercise_scores_zero(path):
    result = grade(path, timeout=TIMEOUT)
    assert result["score"] == 0, points(result)
    # every question fails because it is not answered, not because a stub is broken
    assert {q["reason"] for q in result["questions"]} == {"not answered yet"}


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_questions_match_the_notebook(path):
    """Each question of transformer_course/grader/questions/ has its cell, with the same points, in the
    solution and the exercise."""
    nb = nbformat.read(str(path), as_version=4)
    name, questions = chapter(notebook.chapter_of(nb, path))
    assert name == path.stem and NOTEBOOKS[name]
    numbers = [q.number for q in questions]
    assert len(numbers) == len(set(numbers)), "two questions share a number"
    for ex in (path, ROOT / "exercises" / path.name):
        cells = question_cells(nbformat.read(str(ex), as_version=4))
        assert sorted(cells) == sorted(numbers), f"{ex.name}: question cells {sorted(cells)}, grader {numbers}"
        for q in questions:
            m = notebook.QUESTION_RE.match(notebook.first_line(cells[q.number].source))
            assert int(m.group(2)) == q.points, f"{ex.name} question {q.number}: the cell says {m.group(2)} points"
            assert q.title.lower() in m.group(3).lower(), f"{ex.name} question {q.number}: title {q.title!r}"


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_exercise_shows_no_solution_code(path):
    exercise = nbformat.read(str(ROOT / "exercises" / path.name), as_version=4)
    code = "\n".join(c.source for c in exercise.cells if c.cell_type == "code")
    leaked = [line for line in solution_lines(path) if line in code]
    assert not leaked, leaked


# ---------------------------------------------------------------- 3: exercises/ up to date
def test_check_passes_on_the_repository():
    run = cli("check")
    assert run.returncode == 0, run.stderr
    assert "up to date" in run.stdout


def copy_course(tmp_path):
    for folder in ("solutions", "exercises"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


def test_check_fails_when_an_exercise_is_edited_by_hand(tmp_path):
    root = copy_course(tmp_path)
    assert cli("check", "--root", root).returncode == 0
    edited = root / "exercises" / "01_attention.ipynb"
    nb = nbformat.read(str(edited), as_version=4)
    question_cells(nb)[5].source = question_cells(nb)[5].source.replace("answer_q5 = None", "answer_q5 = 8")
    nbformat.write(nb, str(edited))
    run = cli("check", "--root", root)
    assert run.returncode == 1
    assert "01_attention.ipynb" in run.stderr and "02_multi_head" not in run.stderr
    # `build` repairs it, and writes only what changed
    run = cli("build", "--root", root)
    assert run.returncode == 0 and run.stdout.count("wrote") == 1, run.stdout
    assert cli("check", "--root", root).returncode == 0
    assert edited.read_text() == (ROOT / "exercises" / "01_attention.ipynb").read_text()


def test_check_fails_on_missing_or_orphan_exercises(tmp_path):
    root = copy_course(tmp_path)
    (root / "exercises" / "02_multi_head.ipynb").unlink()
    run = cli("check", "--root", root)
    assert run.returncode == 1 and "02_multi_head.ipynb" in run.stderr
    build.build(root)
    shutil.copy(root / "exercises" / "01_attention.ipynb", root / "exercises" / "99_orphan.ipynb")
    assert build.stale(root) == [root / "exercises" / "99_orphan.ipynb"]


def test_check_notices_a_changed_solution(tmp_path):
    root = copy_course(tmp_path)
    sol = root / "solutions" / "03_embeddings.ipynb"
    nb = nbformat.read(str(sol), as_version=4)
    nb.cells[0].source += "\n\nOne more sentence."
    nbformat.write(nb, str(sol))
    assert build.stale(root) == [root / "exercises" / "03_embeddings.ipynb"]


def test_build_stubs():
    src = (
        'def f(x):\n    "doc"\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n'
        "### BEGIN SOLUTION\ndef helper():\n    answer_q9 = 1\n    return 2\nanswer_q9 = helper()\n### END SOLUTION"
    )
    assert build.clear_solutions(src) == (
        'def f(x):\n    "doc"\n    # YOUR CODE HERE\n    raise NotImplementedError()\nanswer_q9 = None  # your answer'
    )
    for bad in (
        "### BEGIN SOLUTION\nx = 1",
        "x = 1\n### END SOLUTION",
        "### BEGIN SOLUTION\n### BEGIN SOLUTION",
    ):
        with pytest.raises(ValueError):
            build.clear_solutions(bad)


# ---------------------------------------------------------------- 4: wrong answers lose exactly their points
def wrong_notebook(path, tmp_path):
    "(solution, question number, notebook with that question's cell replaced by the file's)."
    nn, number = re.match(r"(.+?)_q(\d+)_", path.name).groups()
    sol, number = solution(nn), int(number)
    body = path.read_text()
    header = notebook.first_line(question_cells(nbformat.read(str(sol), as_version=4))[number].source)
    assert body.split("\n", 1)[0] == header, f"{path.name} must start with the cell's first line: {header}"
    kind = "# WRONG:" if path.parent.name == "wrong_answers" else "# RIGHT:"
    assert body.split("\n")[1].startswith(kind), f"{path.name}: the second line must start with {kind!r}"
    return sol, number, replace_cell(sol, number, body, tmp_path, path.stem, header=False)


def test_there_are_wrong_answers_for_every_exercise():
    assert {exercise_of(p) for p in WRONG} >= {exercise_of(p) for p in SOLUTIONS}


def test_the_classic_mistakes_are_among_the_wrong_answers():
    "Mistakes the course promises the grader catches: each has its file, so a change to a check cannot let it pass."
    names = {p.name for p in WRONG}
    assert {
        "07_q2_smoothing_on_padding.py",  # label smoothing spread over the padding token
        "08_q5_finished_beams_keep_extending.py",  # a beam search that forgets to stop finished beams
        "08_q6_top_p_drops_crossing_token.py",
    } <= names
    # the kinds of wrong answer issue 13 lists, each with at least one case
    kinds = {
        "float ids where torch.long is asked": {"05_q1_float_bos_column.py", "07_q1_float_ids.py"},
        "a dropout rate hard-coded or not passed on": {
            "03_q3_dropout_hard_coded.py",
            "04_q1_dropout_hard_coded.py",
            "04_q3_dropout_not_passed.py",
            "05_q3_dropout_not_passed.py",
        },
        "arguments that coincide in the chapter (key = value, 4-D only)": {
            "01_q3_value_is_key.py",
            "02_q3_key_used_as_value.py",
            "01_q3_transpose_2_3.py",
            "01_q3_four_dim_unpacking.py",
        },
        "a table that must be a buffer": {"03_q3_table_as_parameter.py", "03_q3_table_plain_attribute.py"},
        "search that picks padding or a banned token": {
            "08_q1_predicts_padding.py",
            "08_q5_beam_picks_padding.py",
            "08_q1_ignores_ban.py",
            "08_q5_ignores_ban.py",
        },
    }
    missing = {kind: sorted(files - names) for kind, files in kinds.items() if files - names}
    assert not missing, missing


def test_the_beam_search_models_make_greedy_decoding_wrong():
    "The hand-built models of question 8.5 do what their docstrings say, per the package's own decoders."
    import torch

    from transformer.generation import beam_search, greedy_search
    from transformer_course.grader.questions import search_models as D

    src = torch.tensor([[D.A]])

    def best(model, **kw):
        hyps, _ = beam_search(model, src, D.BOS, D.EOS, 8, use_cache=False, **kw)
        return hyps[0][0]

    trap, longer = D.greedy_trap(), D.long_or_short()
    assert greedy_search(trap, src, D.BOS, D.EOS, 8, use_cache=False) == [[D.A]]
    assert best(trap, beam_size=2, alpha=0.0) == [D.B]
    assert best(longer, beam_size=3, alpha=0.0) == [D.A]
    assert best(longer, beam_size=3, alpha=1.0) == [D.B, D.C, D.D]
    # the greedy question's batch: sentences of different lengths, some ended by eos, some by max_len
    lengths = [len(out) for out in greedy_search(D.random_model(3), D.SOURCES, D.BOS, D.EOS, 10, use_cache=False)]
    assert len(set(lengths)) > 1 and min(lengths) < 10 and max(lengths) == 10


# Only the changed question is graded: every question runs alone on the setup cell and its own cell,
# so the others' results are those of the solution (test_solution_scores_full_marks).
@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_wrong_answer_loses_exactly_its_question(path, tmp_path):
    sol, number, nb = wrong_notebook(path, tmp_path)
    result = grade(nb, timeout=TIMEOUT, only=[number])
    assert points(result) == {number: 0}, [(q["number"], q["reason"], q["hint"]) for q in result["questions"]]
    [miss] = [q for q in result["questions"] if not q["passed"]]
    assert miss["reason"] and miss["hint"], miss
    own = path.read_text()  # the learner's own lines may be quoted back
    leaked = [line for line in solution_lines(sol) if line in miss["hint"] + miss["reason"] and line not in own]
    assert not leaked, leaked


def test_there_are_right_alternatives_for_every_exercise():
    assert {exercise_of(p) for p in RIGHT} >= {exercise_of(p) for p in SOLUTIONS if p.stem != "capstone"}


@pytest.mark.parametrize("path", RIGHT, ids=lambda p: p.stem)
def test_right_alternative_keeps_its_points(path, tmp_path):
    sol, number, nb = wrong_notebook(path, tmp_path)
    result = grade(nb, timeout=TIMEOUT, only=[number])
    [q] = result["questions"]
    assert q["passed"] and q["points"] == full_marks(sol.stem)[number], (q["reason"], q["hint"])


# ---------------------------------------------------------------- 5: robustness
BROKEN = {  # (chapter, question, code after the cell's header, what the reason must say)
    "raises": (
        "01",
        2,
        "def padding_mask(ids, pad_id):\n    return ids.not_a_method()\n",
        r"your code raised AttributeError",
    ),
    "raises_at_top_level": (
        "01",
        1,
        "raise RuntimeError('half-finished cell')\n",
        r"your cell raised RuntimeError",
    ),
    "syntax_error": (
        "01",
        3,
        "def scaled_dot_product_attention(query, key, value, mask=None)\n    return query\n",
        r"syntax error in your cell \(line 2\)",
    ),
    "huge_output": (
        "02",
        1,
        "def split_heads(x, h):\n    for i in range(10**7):\n        print('debug', i, x.shape)\n"
        "    b, n, d_model = x.shape\n    return x.view(b, n, h, d_model // h).transpose(1, 2)\n",
        r"printed more than 100,000 characters",
    ),
    "huge_output_caught": (
        "02",
        2,
        "def merge_heads(x):\n    try:\n        print('x' * 10**6)\n    except Exception:\n"
        "        pass\n    b, h, n, d_k = x.shape\n    return x.transpose(1, 2).reshape(b, n, h * d_k)\n",
        r"printed more than 100,000 characters",
    ),
    "sys_exit": ("03", 4, "import sys\nsys.exit(0)\n", r"your cell raised SystemExit"),
    "crash": ("03", 5, "import os\nos._exit(3)\n", r"crashed \(exit code 3\)"),
    "deep_recursion": (
        "05",
        1,
        "def shift_right(labels, bos_id):\n    return shift_right(labels, bos_id)\n",
        r"recursed too deeply",
    ),
    "wrong_type": ("04", 4, "answer_q4 = 'about three million'\n", r"not a number"),
    "missing_name": (
        "05",
        2,
        "def target_maks(tgt, pad_id):\n    return None\n",
        r"`target_mask` is not defined",
    ),
    "cell_renamed": ("06", 5, None, r"cell not found"),
    # right values, but the input is changed in place: the reference, computed afterwards on the
    # same tensors, would otherwise make the verdict wrong
    "function_changes_its_input": (
        "01",
        3,
        "def scaled_dot_product_attention(query, key, value, mask=None):\n"
        "    query /= math.sqrt(query.size(-1))\n    scores = query @ key.transpose(-2, -1)\n"
        "    if mask is not None:\n        scores = scores.masked_fill(~mask, float('-inf'))\n"
        "    return scores.softmax(-1).nan_to_num(0.0) @ value\n",
        r"^`scaled_dot_product_attention` changed its input in place$",
    ),
    "module_changes_its_input": (
        "04",
        2,
        "class SublayerConnection(nn.Module):\n"
        "    def __init__(self, d_model, dropout=0.1, pre_norm=False):\n        super().__init__()\n"
        "        self.norm, self.dropout, self.pre_norm = nn.LayerNorm(d_model), nn.Dropout(dropout), pre_norm\n"
        "    def forward(self, x, sublayer):\n        if self.pre_norm:\n"
        "            return x + self.dropout(sublayer(self.norm(x)))\n"
        "        x += self.dropout(sublayer(x))\n        return self.norm(x)\n",
        r"changed its input in place$",
    ),
}


@pytest.mark.parametrize("case", BROKEN, ids=str)
def test_a_broken_answer_costs_only_its_question(case, tmp_path):
    nn, number, body, reason = BROKEN[case]
    if body is None:  # the learner changed the first line: the cell is not found
        nb = replace_cell(solution(nn), number, "answer_q5 = 5120000\n", tmp_path, case, header=False)
    else:
        nb = replace_cell(solution(nn), number, body, tmp_path, case)
    result = grade(nb, timeout=TIMEOUT)
    assert points(result) == {**full_marks(nn), number: 0}
    miss = result["questions"][number - 1]
    assert re.search(reason, miss["reason"]), miss
    if case == "raises":  # the hint names the learner's line and the input being tried
        assert "(line 3: return ids.not_a_method())" in miss["hint"]
        assert "the grader was running `same(f(ids, 0)" in miss["hint"]


def test_an_endless_loop_hits_the_time_limit_and_ends_what_it_started(tmp_path):
    pid_file = tmp_path / "pid"
    body = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "while True:\n    pass\n"
    )
    nb = replace_cell(solution("04"), 5, body, tmp_path, "loop")
    start = time.perf_counter()
    result = grade(nb, timeout=3)
    assert time.perf_counter() - start < 60
    assert points(result) == {**full_marks("04"), 5: 0}
    assert result["questions"][4]["reason"] == "took longer than 3 s"
    pid = int(pid_file.read_text())  # the process the cell started was killed with it
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            break
        if state in ("Z", "X"):  # dead, waiting to be reaped
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"process {pid} started by the learner's cell is still running")


FORBIDDEN = {  # (chapter, question, code after the header): each uses what the question asks to write
    "package_causal_mask": (
        "01",
        1,
        "from transformer import causal_mask as reference\n\ndef causal_mask(size):\n    return reference(size)\n",
    ),
    "package_attention": (
        "01",
        3,
        "import transformer.attention as A\n\n"
        "def scaled_dot_product_attention(query, key, value, mask=None):\n"
        "    return A.scaled_dot_product_attention(query, key, value, mask)\n",
    ),
    "torch_fused_attention": (
        "01",
        3,
        "def scaled_dot_product_attention(query, key, value, mask=None):\n"
        "    out = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)\n"
        "    return out.nan_to_num(0.0)\n",
    ),
    "package_attention_caught": (
        "01",
        3,
        "from transformer.attention import attention_weights\n\n"
        "def scaled_dot_product_attention(query, key, value, mask=None):\n"
        "    try:\n        return attention_weights(query, key, mask) @ value\n"
        "    except Exception:\n        return None\n",
    ),
    "subclass_of_package_mha": (
        "02",
        3,
        "from transformer.multi_head import MultiHeadAttention as M\n\nclass MultiHeadAttention(M):\n    pass\n",
    ),
    "torch_mha": (
        "02",
        1,
        "def split_heads(x, h):\n    nn.MultiheadAttention(x.size(-1), h)\n"
        "    b, n, d_model = x.shape\n    return x.view(b, n, h, d_model // h).transpose(1, 2)\n",
    ),
    "package_positional_table": (
        "03",
        1,
        "from transformer.embeddings import PositionalEncoding\n\n"
        "def sinusoidal_encoding(max_len, d_model):\n"
        "    return PositionalEncoding(d_model, 0.0, max_len).pe.clone()\n",
    ),
    "package_sublayer_inside": (
        "04",
        2,
        "from transformer.encoder import SublayerConnection as S\n\n"
        "class SublayerConnection(nn.Module):\n"
        "    def __init__(self, d_model, dropout=0.1, pre_norm=False):\n"
        "        super().__init__()\n        self.inner = S(d_model, dropout, pre_norm)\n"
        "        self.norm = self.inner.norm\n"
        "    def forward(self, x, sublayer):\n        return self.inner(x, sublayer)\n",
    ),
    "model_forward": (
        "06",
        1,
        "def transformer_forward(model, src, tgt, pad_id):\n    return model(src, tgt)\n",
    ),
    "package_smoothed_targets": (
        "07",
        2,
        "from transformer.training import smoothed_targets as reference\n\n"
        "def smoothed_targets(target, vocab, smoothing=0.1, pad_id=0):\n"
        "    return reference(target, vocab, smoothing, pad_id)\n",
    ),
    "noam_from_the_package": (
        "07",
        5,
        "from transformer.training import learning_rate\n\n"
        "def noam_lr(step, d_model, warmup, factor=1.0):\n"
        "    return learning_rate(step, d_model, warmup, factor)\n",
    ),
    "greedy_as_a_beam_of_one": (
        "08",
        1,
        "from transformer.generation import beam_search\n\n"
        "def greedy_search(model, src, bos_id, eos_id, max_len):\n"
        "    return [h[0] for h in beam_search(model, src, bos_id, eos_id, max_len, beam_size=1)[0]]\n",
    ),
    "greedy_as_cold_sampling": (
        "08",
        1,
        "import transformer.generation as D\n\n"
        "def greedy_search(model, src, bos_id, eos_id, max_len):\n"
        "    return D.sample(model, src, bos_id, eos_id, max_len, temperature=0)\n",
    ),
    "package_beam_search": (
        "08",
        5,
        "from transformer import generation\n\n"
        "def beam_search(model, src, bos_id, eos_id, max_len, beam_size=4, alpha=0.6):\n"
        "    hyps, scores = generation.beam_search(model, src, bos_id, eos_id, max_len, beam_size, alpha,\n"
        "                                        use_cache=False)\n"
        "    return hyps[0][0], scores[0][0]\n",
    ),
    # the package's own object under the learner's name: no learner code runs when the grader calls it
    "package_imported_as_is": ("01", 1, "from transformer.attention import causal_mask\n"),
    "package_class_renamed": (
        "07",
        3,
        "from transformer.training import LabelSmoothingLoss as reference\nLabelSmoothingLoss = reference\n",
    ),
    "package_wrapped_in_partial": (
        "08",
        6,
        "import functools\nfrom transformer.generation import sampling_probs as reference\n"
        "sampling_probs = functools.partial(reference)\n",
    ),
    "model_encode": (
        "06",
        1,
        "from transformer.attention import causal_mask, padding_mask\n\n"
        "def transformer_forward(model, src, tgt, pad_id):\n"
        "    s, t = padding_mask(src, pad_id), padding_mask(tgt, pad_id) & causal_mask(tgt.size(1))\n"
        "    return model.decode(tgt, model.encode(src, s), s, t)\n",
    ),
    "package_learn_bpe": (
        "09_1",
        2,
        "from transformer.subwords import learn_bpe as reference\n\n"
        "def learn_bpe(word_counts, n_merges):\n    return reference(word_counts, n_merges)\n",
    ),
    "sacrebleu_for_bleu": (
        "10",
        1,
        "import sacrebleu\n\ndef corpus_bleu(hypotheses, references):\n"
        "    bleu = sacrebleu.metrics.BLEU(tokenize='none', smooth_method='none', force=True)\n"
        "    return bleu.corpus_score(hypotheses, [references]).score\n",
    ),
    "grader_reference_rope": (
        "13",
        1,
        "import torch\nfrom transformer_course.grader.questions.beyond import rope\n\n"
        "def rope_score(q, k, offset, base=10000.0):\n"
        "    return (rope(q[None], torch.tensor([0]), base) @ rope(k[None], torch.tensor([offset]), base).T).item()\n",
    ),
    "grader_reference_rope_score": (
        "13",
        1,
        "from transformer_course.grader.questions.beyond import rope_score\n",
    ),
    "grader_reference_rescoring": (
        "10",
        4,
        "from transformer_course.grader.questions import translation\n\n"
        "def best_hypothesis(hypotheses, alpha):\n"
        "    return translation.best_hypothesis(hypotheses, alpha)\n",
    ),
    # tokenizers' classes are compiled and cannot be subclassed: the ban wraps them in a function instead
    "library_trainer": (
        "09_1",
        2,
        "import json\nfrom tokenizers import Tokenizer, models, trainers\n\n"
        "def learn_bpe(word_counts, n_merges):\n"
        "    tok = Tokenizer(models.BPE())\n"
        "    n_chars = len({c for word in word_counts for c in word})\n"
        "    trainer = trainers.BpeTrainer(vocab_size=n_chars + n_merges, show_progress=False)\n"
        "    tok.train_from_iterator([w for w, c in word_counts.items() for _ in range(c)], trainer)\n"
        "    return [tuple(m) for m in json.loads(tok.to_str())['model']['merges']]\n",
    ),
    "library_bpe_model": (
        "09_1",
        3,
        "from tokenizers.models import BPE\n\n"
        "def segment(word, merges):\n"
        "    vocab = {c: i for i, c in enumerate(sorted(set(word) | {c for m in merges for c in m[0] + m[1]}))}\n"
        "    for left, right in merges:\n        vocab.setdefault(left + right, len(vocab))\n"
        "    return [t.value for t in BPE(vocab=vocab, merges=list(merges)).tokenize(word)]\n",
    ),
}


@pytest.mark.parametrize("case", FORBIDDEN, ids=str)
def test_using_the_packages_own_answer_scores_zero(case, tmp_path):
    # graded alone, as the wrong answers are: each question runs in a process of its own with only the
    # setup cell and its own cell, and test_a_broken_answer_costs_only_its_question checks that
    nn, number, body = FORBIDDEN[case]
    result = grade(replace_cell(solution(nn), number, body, tmp_path, case), timeout=TIMEOUT, only=[number])
    assert points(result) == {number: 0}
    [miss] = result["questions"]
    assert miss["reason"] == "uses the package's own answer", miss
    assert "do not use" in miss["hint"]


# ---------------------------------------------------------------- 5, 6: the command line, JSON and hints
def test_command_line_json_table_and_hints(tmp_path):
    nb = nbformat.read(str(solution("01")), as_version=4)
    cells = question_cells(nb)
    broken = {
        1: "raise RuntimeError('half-finished cell')",
        2: "while True:\n    pass",
        3: (ROOT / "tests" / "wrong_answers" / "01_q3_attention_unscaled.py").read_text().split("\n", 1)[1],
        4: "for i in range(10**6):\n    print(i)\nanswer_q4 = 0.4",
        5: "answer_q5 = (64",
        6: (ROOT / "tests" / "wrong_answers" / "01_q6_global_max.py").read_text().split("\n", 1)[1],
        7: "answer_q7 = 'aceg'",
    }
    for n, body in broken.items():
        cells[n].source = cells[n].source.split("\n", 1)[0] + "\n" + body
    path = tmp_path / "01_attention.ipynb"
    nbformat.write(nb, str(path))
    out = tmp_path / "result.json"
    run = cli("grade", path, "--timeout", 3, "--hints", "--json", out)
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    assert result["score"] == 0 and result["max_score"] == 14
    assert [q["passed"] for q in result["questions"]] == [False] * 7
    # the table printed is the JSON: one row per question with its points and reason, then the total
    assert run.stdout.startswith(table(result, hints=True))
    for q in result["questions"]:
        row = re.search(rf"^\s+{q['number']}\s+{re.escape(q['title'])}\s+(\d+)/(\d+)\s+(.*)$", run.stdout, re.M)
        assert row and (int(row[1]), int(row[2]), row[3]) == (q["points"], q["max_points"], q["reason"])
    assert re.search(r"Total: 0/14 points", run.stdout)
    reasons = [q["reason"] for q in result["questions"]]
    assert reasons[0] == "your cell raised RuntimeError"
    assert reasons[1] == "took longer than 3 s"
    assert reasons[2].startswith("the output has wrong values")
    assert reasons[3] == "your cell printed more than 100,000 characters"
    assert reasons[4].startswith("syntax error in your cell")
    # --hints explains each miss: the input that failed, expected versus got; never the solution's code
    hints = [line.strip() for line in run.stdout.splitlines() if line.strip().startswith("hint:")]
    assert len(hints) == 7
    assert "no mask, len_q=4, len_k=6, d_k=16" in run.stdout
    assert re.search(r"expected -?\d.*, got -?\d", hints[2])
    assert "half-finished cell" in hints[0]
    own = "\n".join(broken.values())
    leaked = [line for line in solution_lines(solution("01")) if line in run.stdout and line not in own]
    assert not leaked, leaked


def test_report_tables_every_exercise(tmp_path):
    "`python -m transformer_course.grader report`: one row per exercise from the JSON files, misses named, the rest not graded yet."
    for nn, q, body in (("01", 4, "answer_q4 = 0.5\n"), ("03", None, None)):
        nb = replace_cell(solution(nn), q, body, tmp_path, "r") if q else solution(nn)
        assert cli("grade", nb, "--json", tmp_path / "grades" / f"{solution(nn).stem}.json").returncode == 0
    run = cli("report", "--json-dir", tmp_path / "grades")
    assert run.returncode == 0, run.stderr
    rows = {line.split()[0]: line for line in run.stdout.splitlines()[1:]}
    assert sorted(rows) == sorted([*NOTEBOOKS, "total"])
    most = {nn: sum(full_marks(nn).values()) for nn in NOTEBOOKS}
    assert re.search(
        rf"01_attention\s+{most['01_attention'] - 2}\s+{most['01_attention']}\s+q4: wrong value$",
        rows["01_attention"],
    ), rows["01_attention"]
    assert re.search(
        rf"03_embeddings\s+{most['03_embeddings']}\s+{most['03_embeddings']}\s+all done",
        rows["03_embeddings"],
    )
    assert re.search(r"\s-\s+\d+\s+not graded yet", rows["02_multi_head"])
    total = most["01_attention"] - 2 + most["03_embeddings"]
    assert re.search(rf"total\s+{total}\s+{sum(most.values())}", rows["total"])
    assert cli("report", "--json-dir", tmp_path / "nowhere").returncode == 2


def test_hints_of_a_wrong_number_do_not_give_the_answer(tmp_path):
    nb = replace_cell(solution("02"), 4, "answer_q4 = 4 * 512 * 512\n", tmp_path, "number")
    result = grade(nb, timeout=TIMEOUT)
    miss = result["questions"][3]
    assert miss["hint"] == "`answer_q4` = 1,048,576 is too small (an exact integer is expected)."
    assert "1,050,624" not in table(result, hints=True) and "1050624" not in json.dumps(result)
    assert "hint:" not in table(result, hints=False)


def test_unreadable_notebooks_are_one_line_errors(tmp_path):
    bad = tmp_path / "01_attention.ipynb"
    bad.write_text("{ this is not json")
    run = cli("grade", bad)  # fails before importing torch, exit code 2
    assert run.returncode == 2 and run.stderr.strip() == f"error: {bad}: not a Jupyter notebook (JSONDecodeError)"
    with pytest.raises(ValueError, match="no such file"):
        grade(tmp_path / "missing.ipynb")
    other = tmp_path / "notes.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), str(other))
    with pytest.raises(ValueError, match="not an exercise notebook"):
        grade(other)


def test_an_old_format_notebook_is_converted(tmp_path):
    old = tmp_path / "01_attention.ipynb"
    old.write_text(nbformat.writes(nbformat.convert(nbformat.read(str(solution("01")), as_version=4), 3)))
    assert json.loads(old.read_text())["nbformat"] == 3
    result = grade(old, timeout=TIMEOUT)
    assert result["score"] == result["max_score"]


def test_an_exercise_without_questions_yet_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(NOTEBOOKS, "09_nothing", "nothing_here")
    with pytest.raises(ValueError, match="has no questions yet"):
        chapter("09_nothing")
    assert chapter("42") == (None, [])
