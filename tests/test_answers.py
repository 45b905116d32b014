"""Every question at the end of a chapter has a worked answer, hidden in the book until clicked.

The notebooks are read as JSON; nothing is executed, so these tests take a fraction of a second
(the book build in tests/test_book.py runs the answer cells along with the rest of each chapter). A chapter is
checked when one of its markdown cells has a `## Questions` heading; it must then have:

- one markdown cell per numbered question, after the Questions cell and in order, that is exactly one
  MyST dropdown admonition titled `Answer k` (with `:class: dropdown`) and has an answer in it;
- a `## Answers` heading between the questions and the first answer;
- for every code cell whose first line is `# Answer k`: the tag `hide-cell` (or `hide-input`), and
  the admonition of answer k directly before it.

Each failure names the chapter and the question.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = re.compile(r"^## Questions[ \t]*$", re.M)
ITEM = re.compile(r"^(\d+)\.[ \t]", re.M)
ANSWERS = re.compile(r"^## Answers[ \t]*$", re.M)
# the opening line of an answer: ```{admonition} Answer k (a ::: fence is accepted too)
ADMONITION = re.compile(r"\A\s*(?P<fence>`{3,}|:{3,})\{admonition\}[ \t]+Answer[ \t]+(?P<k>\d+)[ \t]*$", re.M)
ANSWER_CODE = re.compile(r"\A# Answer (\d+)[ \t]*$")
HIDDEN = {"hide-cell", "hide-input"}


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def has_questions(path):
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (ValueError, KeyError):
        return True  # a notebook that does not parse gets its tests, and fails them
    return any(c.get("cell_type") == "markdown" and QUESTIONS.search(source(c)) for c in cells)


CHAPTERS = sorted(p for p in (ROOT / "chapters").glob("*.ipynb") if has_questions(p))


class Chapter(tuple):
    "(name, cells, index of the Questions cell, question numbers, answers), shown by its name alone."

    def __repr__(self):
        return self[0]


def parse(path):
    """Chapter(name, cells, index of the Questions cell, question numbers, answers): answers maps the index of
    every answer admonition cell to (k, body, options, well_formed)."""
    name = f"chapters/{path.name}"
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (ValueError, KeyError) as err:
        pytest.fail(f"{name}: not a readable notebook ({err})")
    found = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and QUESTIONS.search(source(c))]
    assert len(found) == 1, f"{name}: {len(found)} markdown cells with a '## Questions' heading, expected one"
    q = found[0]
    text = source(cells[q])
    section = text[QUESTIONS.search(text).end() :]
    section = re.split(r"^#", section, maxsplit=1, flags=re.M)[0]  # up to the next heading, if any
    numbers = [int(n) for n in ITEM.findall(section)]
    assert numbers, f"{name}: the Questions cell has no numbered question"
    assert numbers == list(range(1, len(numbers) + 1)), (
        f"{name}: the questions are numbered {numbers}, expected 1 to {len(numbers)}"
    )
    answers = {}
    for i, c in enumerate(cells):
        m = ADMONITION.match(source(c)) if c["cell_type"] == "markdown" else None
        if m is None:
            continue
        assert i > q, f"{name}: answer {m['k']} (cell {i}) comes before the Questions cell (cell {q})"
        rest = source(c)[m.end() :].strip()
        closing = re.search(rf"^{re.escape(m['fence'])}[ \t]*\Z", rest, re.M)
        body = rest[: closing.start()] if closing else rest
        options = re.findall(r"^:([\w-]+):[ \t]*(.*)$", body, re.M)
        body = re.sub(r"\A(?:[ \t]*:[\w-]+:.*(?:\n|\Z))*", "", body)  # the options come first
        answers[i] = (int(m["k"]), body.strip(), dict(options), closing is not None)
    return Chapter((name, cells, q, numbers, answers))


@pytest.fixture(params=CHAPTERS, ids=[p.stem for p in CHAPTERS])
def chapter(request):
    return parse(request.param)


def test_there_are_chapters_with_questions():
    assert CHAPTERS, "no chapter in chapters/ has a '## Questions' heading"


def test_every_question_has_one_dropdown_answer(chapter):
    name, cells, q, numbers, answers = chapter
    order = [k for k, *_ in answers.values()]
    for k in numbers:
        assert k in order, (
            f"{name}: question {k} has no answer (a markdown cell '```{{admonition}} Answer {k}' "
            f"with ':class: dropdown', after the Questions cell)"
        )
        assert order.count(k) == 1, f"{name}: question {k} has {order.count(k)} answer cells"
    extra = [k for k in order if k not in numbers]
    assert not extra, f"{name}: answers {extra} but the chapter has only {len(numbers)} questions"
    assert order == numbers, f"{name}: the answers come in the order {order}, expected {numbers}"
    for _i, (k, _body, options, closed) in answers.items():
        assert closed, f"{name}: answer {k}: the cell must be exactly one admonition, closed by its fence"
        assert "dropdown" in options.get("class", "").split(), (
            f"{name}: answer {k} is not hidden: its admonition has no ':class: dropdown'"
        )


def test_answers_heading(chapter):
    name, cells, q, numbers, answers = chapter
    first = min(answers, default=len(cells))
    assert any(c["cell_type"] == "markdown" and ANSWERS.search(source(c)) for c in cells[q + 1 : first]), (
        f"{name}: no '## Answers' heading between the Questions cell and the first answer"
    )


def test_no_answer_is_empty(chapter):
    name, cells, q, numbers, answers = chapter
    for k, body, _options, _closed in answers.values():
        assert body, f"{name}: answer {k} is empty"


def test_answer_code_is_hidden_and_follows_its_answer(chapter):
    name, cells, q, numbers, answers = chapter
    for i, c in enumerate(cells):
        m = ANSWER_CODE.match(source(c).split("\n", 1)[0]) if c["cell_type"] == "code" else None
        if m is None:
            continue
        k = int(m[1])
        assert k in numbers, f"{name}: a code cell is headed '# Answer {k}' but there is no question {k}"
        tags = set(c.get("metadata", {}).get("tags", []))
        assert tags & HIDDEN, (
            f"{name}: the code cell of answer {k} is shown in the book: "
            f"tag it 'hide-cell' (its tags are {sorted(tags)})"
        )
        assert answers.get(i - 1, (None,))[0] == k, (
            f"{name}: the code cell of answer {k} does not directly follow the admonition of answer {k}"
        )
