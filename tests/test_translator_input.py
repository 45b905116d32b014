"""One input check in two languages: chapter 10's `check_source` (Python, used by every translator of
the course) and its copy in the page's JavaScript, tools/book/translator_input.mjs (run here with node).

Both get the same sentences, with the ids that the shipped model's tokenizer.json gives them (computed
once, in Python, so both sides see the same ids): good ones and bad ones, at and just past each limit.
They must accept the same ones with the same ids and refuse the others with the same message, and
both must give the answers written down here, so that changing a rule on either side, or on both,
fails the test."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import tokenizers
from conftest import skip_or_fail

from transformer.data import Vocab
from transformer.translators import MAX_CHARS, InputError, TranslatorProtocol, check_source

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "tools" / "book" / "translator_input.mjs"
PAGE = ROOT / "tools" / "book" / "book_translator.js"
MODEL = ROOT / "models" / "de-en-cpu"
EOS = Vocab.eos_id

DRIVER = """import { readFileSync } from "node:fs";
import { InputError, MAX_CHARS, checkSource } from "%s";
const cases = JSON.parse(readFileSync(0, "utf8"));
const results = cases.map(({ sentence, ids, max_len }) => {
  try { return { ids: checkSource(sentence, () => ids, max_len) }; }
  catch (e) { if (!(e instanceof InputError)) throw e; return { error: e.message }; }
});
console.log(JSON.stringify({ max_chars: MAX_CHARS, results }));
"""


@pytest.fixture(scope="module")
def node():
    path = shutil.which("node")
    if path is None:
        skip_or_fail("node is not installed: the page's JavaScript cannot run")
    return path


@pytest.fixture(scope="module")
def shipped():
    "The shipped model's tokenizer (sentence -> ids, <eos> included) and its max_len."
    if not (MODEL / "tokenizer.json").is_file():
        skip_or_fail(f"{MODEL} has no tokenizer.json")
    tokenizer = tokenizers.Tokenizer.from_file(str(MODEL / "tokenizer.json"))
    max_len = json.loads((MODEL / "config.json").read_text())["max_len"]
    return (lambda s: tokenizer.encode(s).ids), max_len


def words_filling(encode, n_ids):
    "'Hund Hund ...' with exactly n_ids ids (<eos> included)."
    for k in range(1, 4 * n_ids):
        sentence = " ".join(["Hund"] * k)
        if len(encode(sentence)) == n_ids:
            return sentence
    raise AssertionError(f"no number of words gives {n_ids} ids")


def cases(encode, max_len):
    """(name, sentence, max_len, expected: "ok" or the message). A max_len of 10**6 tests the
    character limit alone; ids are the shipped tokenizer's."""
    full = words_filling(encode, max_len)  # max_len - 1 tokens and <eos>
    over = full + " Hund"
    n_over = len(encode(over)) - 1
    EMPTY, BIG = "the sentence is empty", 10**6
    chars = lambda n: f"{n} characters, more than the maximum of {MAX_CHARS}"
    tokens = lambda n, m: f"{n} tokens, more than the model's maximum of {m - 1}"
    return [
        ("a sentence", "Zwei Hunde spielen im Schnee.", max_len, "ok"),
        ("an emoji", "Ein Hund 🐕 rennt.", max_len, "ok"),
        ("empty", "", max_len, EMPTY),
        ("spaces", "   ", max_len, EMPTY),
        ("tabs and line breaks", "\t\n \r\n", max_len, EMPTY),
        ("Python's spaces that JavaScript's trim() keeps", "\x1c\x1d\x1e\x1f\x85", max_len, EMPTY),
        ("wide spaces", "\u3000\u2003\u00a0", max_len, EMPTY),
        ("a byte order mark, no space to Python", "\ufeff", max_len, "ok"),
        ("MAX_CHARS characters", "a" * MAX_CHARS, BIG, "ok"),
        ("MAX_CHARS + 1 characters", "a" * (MAX_CHARS + 1), BIG, chars(MAX_CHARS + 1)),
        ("MAX_CHARS emoji (twice as many UTF-16 units)", "🐕" * MAX_CHARS, BIG, "ok"),
        ("MAX_CHARS + 1 emoji", "🐕" * (MAX_CHARS + 1), BIG, chars(MAX_CHARS + 1)),
        ("the character limit before the tokens", "Hund " * MAX_CHARS, max_len, chars(5 * MAX_CHARS)),
        ("max_len ids", full, max_len, "ok"),
        ("max_len + 1 ids", over, max_len, tokens(n_over, max_len)),
        ("a small max_len, at it", "Zwei Hunde.", len(encode("Zwei Hunde.")), "ok"),
        (
            "a small max_len, one short",
            "Zwei Hunde.",
            len(encode("Zwei Hunde.")) - 1,
            tokens(len(encode("Zwei Hunde.")) - 1, len(encode("Zwei Hunde.")) - 1),
        ),
    ]


def assert_translator_interface(translator):
    """`translator` satisfies TranslatorProtocol: the methods, with the Protocol's parameter names
    (test_translate, test_onnx and test_ctranslate call it for the three translators)."""
    import inspect

    assert isinstance(translator, TranslatorProtocol)
    for name in ("input_ids", "translate", "translate_ids"):
        expected = list(inspect.signature(getattr(TranslatorProtocol, name)).parameters)[1:]  # without self
        assert list(inspect.signature(getattr(translator, name)).parameters) == expected, name
    assert len(translator.langs) == 2


def python_answer(sentence, ids, max_len):
    try:
        return {"ids": check_source(sentence, lambda s: ids, max_len)}
    except InputError as e:
        return {"error": str(e)}


def javascript_answers(node, tmp_path, inputs):
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER % MODULE.resolve().as_uri())
    r = subprocess.run([node, str(driver)], input=json.dumps(inputs), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_python_and_the_page_accept_and_refuse_the_same_sentences_in_the_same_words(node, shipped, tmp_path):
    encode, max_len = shipped
    table = cases(encode, max_len)
    inputs = [{"sentence": s, "ids": encode(s), "max_len": m} for _, s, m, _ in table]
    js = javascript_answers(node, tmp_path, inputs)
    assert js["max_chars"] == MAX_CHARS
    for (name, sentence, _, expected), given, theirs in zip(table, inputs, js["results"]):
        ours = python_answer(sentence, given["ids"], given["max_len"])
        assert ours == theirs, f"{name}: Python {ours}, JavaScript {theirs}"
        assert ours == ({"ids": given["ids"]} if expected == "ok" else {"error": expected}), name
        assert "error" in ours or ours["ids"][-1] == EOS  # tokenizer.json appends <eos>
    assert len(js["results"]) == len(table)


def test_messages_are_one_line_and_the_word_rule_is_pythons_alone():
    "The unseen-characters rule of chapter 9's word pipeline: Python only (the page reads byte-level BPE)."
    with pytest.raises(InputError) as error:
        check_source("Ein ☃ und ein 字.", lambda s: [5, 2], 10, unseen=lambda s: ["☃", "字"])
    assert str(error.value) == "characters never seen in training: '☃' '字'"
    assert check_source("Ein Hund.", lambda s: [5, 6, 2], 10, unseen=lambda s: []) == [5, 6, 2]
    encoded = []
    with pytest.raises(InputError, match="the sentence is empty"):
        check_source(" ", encoded.append, 10)
    assert not encoded  # refused before it is encoded
    text = MODULE.read_text()
    assert "unseen" not in re.sub(r"//.*", "", text)  # the module holds no such rule


def test_the_page_imports_the_check_and_the_build_serves_it(node, tmp_path):
    "book_translator.js imports translator_input.mjs by the name book_translator.py serves it under; both parse."
    from tools.book import book_translator

    page = PAGE.read_text()
    imported = re.search(r'from "\./(translator_input\.mjs)"', page)
    assert imported and book_translator.SCRIPTS[imported[1]] == MODULE
    assert book_translator.SCRIPTS["translator.js"] == PAGE
    assert "checkSource(" in page and "MAX_CHARS" not in page  # no second copy of the rules
    for path in (PAGE, MODULE):  # both parse as ES modules
        copy = tmp_path / (path.stem + ".mjs")
        copy.write_text(path.read_text())
        r = subprocess.run([node, "--check", str(copy)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr


def test_the_page_reads_the_onnx_json_format_the_package_writes():
    from transformer.onnx_export import ONNX_FORMAT

    declared = re.search(r"const ONNX_FORMAT = (\d+);", PAGE.read_text())
    assert declared and int(declared[1]) == ONNX_FORMAT
