"""The book's reading times (transformer_course/reading_time.py): the counting itself, on small
synthetic pages whose words and code lines are counted by hand here, and the book: every Part I
chapter's opening box states its computed time, and Part I fits in 7 hours."""

import json

import pytest

from transformer_course import reading_time as rt


def md(source, tags=()):
    return {"cell_type": "markdown", "metadata": {"tags": list(tags)}, "source": source}


def code(source, tags=()):
    return {
        "cell_type": "code",
        "metadata": {"tags": list(tags)},
        "source": source,
        "outputs": [{"output_type": "stream", "name": "stdout", "text": "not read " * 50}],
    }


BOX = (
    "```{admonition} This chapter\n:class: tip\n- **You will learn:** masks.\n"
    "- **It builds on:** nothing.\n- **Time:** about 40 minutes.\n```"
)

NOTEBOOK = {
    "cells": [
        md("# 1. Title words\n\nSee [chapter two](02_multi_head.ipynb) and {term}`label smoothing`."),
        code("# Colab install\nimport os\n\nprint(1)\n", ["hide-input"]),  # folded: 0 lines
        code("#| default_exp attention", ["remove-cell"]),  # removed: 0 lines
        md(BOX),
        md("% a comment for authors only\nOne two three.\n<!-- hidden words here -->\n![a picture alt](x.png)"),
        code("#| export\ndef f(x):\n\n    return x\n"),  # 3 lines
        code(["import torch\n", "   \n", "y = 2\n"]),  # 2 lines (list source)
        code("# Answer 0\nz = 1", ["hide-cell"]),  # folded: 0 lines
        md("Fenced:\n```python\na = 1\n\nb = 2\n```\nafter it"),
        md("Last words.\n\n## Answers\n\nNot counted at all."),
        md("```{admonition} Answer 1\n:class: dropdown\nMany words that are never counted.\n```"),
        code("print('answer code, not counted')\nx = 1"),
    ]
}
# words: "1 Title words" 3 + "See chapter two and label smoothing" 6 = 9; the box: "This chapter" 2
# + "You will learn masks" 4 + "It builds on nothing" 4 + "Time about 40 minutes" 4 = 14;
# "One two three" 3; "Fenced" 1 + "after it" 2 = 3; "Last words" 2.  Total 31.
# code: 3 + 2 + the fenced 2 = 7 lines.


def test_counts_what_the_book_shows_before_the_answers():
    counts = rt.notebook_counts(NOTEBOOK)
    assert (counts.words, counts.code_lines) == (31, 7)
    assert counts.minutes == pytest.approx(31 / 180 + 7 / 15)


def test_prose_words():
    assert rt.prose_words("Scaled dot-product attention, $\\sqrt{d_k}$: 63.1M don't") == 6
    assert rt.prose_words("[text here](https://example.org/a/b/c/d)") == 2
    assert rt.prose_words("<b>bold</b> <a href='x y z'>link</a>") == 2
    assert rt.prose_words("| a | b |\n|---|---|\n| c d | e |") == 5


def test_markdown_page_and_nested_fences():
    text = (
        "# Page\n\n````{admonition} Note\n:class: tip\nInside it.\n```python\nx = 1\n```\n"
        "Still inside.\n````\n\n```\nplain fence\n```\n\n## Answers\n\nhidden words\n"
    )
    path_counts = rt.markdown_counts(rt.before_answers(text)[0])
    # words: Page 1, Note 1, Inside it 2, Still inside 2 = 6; code: x = 1, plain fence = 2
    assert (path_counts.words, path_counts.code_lines) == (6, 2)


def test_page_counts_of_files(tmp_path):
    nb = tmp_path / "a.ipynb"
    nb.write_text(json.dumps(NOTEBOOK))
    page = tmp_path / "b.md"
    page.write_text("# B\n\nfour words are here\n\n## Answers\nnot these\n")
    assert rt.page_minutes(nb) == pytest.approx(31 / 180 + 7 / 15)
    assert (rt.page_counts(page).words, rt.page_counts(page).code_lines) == (5, 0)


def test_parts_of_a_toc(tmp_path):
    (tmp_path / "chapters" / "practice").mkdir(parents=True)
    for name in [
        "intro.md",
        "01_a.ipynb",
        "02_b.ipynb",
        "03_c.md",
        "practice/index.md",
        "practice/02_x.ipynb",
        "practice/01_y.ipynb",
        "practice/notes.txt",
    ]:
        target = tmp_path / "chapters" / name
        target.write_text(
            json.dumps({"cells": [md(f"# {name}\n\nword")]}) if name.endswith(".ipynb") else f"# {name}\n\nword\n"
        )
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: chapters/intro\nparts:\n"
        "  - caption: One\n    chapters:\n      - file: chapters/01_a\n"
        "        sections:\n          - file: chapters/02_b.ipynb\n"
        "  - caption: Two\n    chapters:\n      - file: chapters/03_c\n"
        "      - file: chapters/missing\n"
        "      - file: chapters/practice/index\n      - glob: chapters/practice/[0-9]*\n"
    )
    assert rt.toc_parts(tmp_path) == [
        ("Start here", ["chapters/intro"]),
        ("One", ["chapters/01_a", "chapters/02_b"]),
        (
            "Two",
            [
                "chapters/03_c",
                "chapters/missing",
                "chapters/practice/index",
                "chapters/practice/01_y",
                "chapters/practice/02_x",
            ],
        ),
    ]
    pages = rt.book_pages(tmp_path)  # the missing page is left out
    assert [p.doc for p in pages if p.part == "Two"] == [
        "chapters/03_c",
        "chapters/practice/index",
        "chapters/practice/01_y",
        "chapters/practice/02_x",
    ]
    totals = rt.part_minutes(pages)
    assert list(totals) == ["Start here", "One", "Two"]
    assert totals["One"] == pytest.approx(pages[1].minutes + pages[2].minutes)


def test_chapter_numbers(tmp_path):
    for name, title in [
        ("a.ipynb", "# 7.1 Checkpoints"),
        ("b.ipynb", "# 10. German to English"),
        ("c.ipynb", "# The `transformer` package"),
        ("d.md", "# 13. Beyond"),
    ]:
        (tmp_path / name).write_text(
            json.dumps({"cells": [md(title + "\n\ntext")]}) if name.endswith(".ipynb") else title + "\n"
        )
    assert [rt.chapter_number(tmp_path / n) for n in ["a.ipynb", "b.ipynb", "c.ipynb", "d.md"]] == [
        "7.1",
        "10",
        None,
        "13",
    ]


def test_nearest_five():
    assert [rt.nearest_five(m) for m in [0.4, 7.4, 7.6, 12.4, 12.6, 61]] == [5, 5, 10, 10, 15, 60]


def test_write_box_time(tmp_path):
    path = tmp_path / "c.ipynb"
    path.write_text(json.dumps(NOTEBOOK, indent=1))
    assert rt.box_time(NOTEBOOK) == 40
    assert rt.write_box_time(path, 5) is True
    written = json.loads(path.read_text())
    assert rt.box_time(written) == 5
    assert rt.notebook_counts(written).words == 31  # only the number changed
    assert rt.write_box_time(path, 5) is False  # nothing to change
    assert rt.box_time({"cells": [md("# 1. T"), md("no box")]}) is None


# ------------------------------------------------------------------------------ the book
def test_every_part_one_box_states_its_computed_time():
    "Fails when a chapter changed but its box did not: run `python -m transformer_course.reading_time --write`."
    stale = rt.stale_boxes()
    assert not stale, "opening boxes to update (--write), or missing: " + ", ".join(
        f"{doc} says {said}, computed {should}" for doc, said, should in stale
    )


def test_part_one_reads_in_seven_hours():
    pages = rt.book_pages()
    assert any(p.part == rt.PART_I for p in pages), f"no part captioned {rt.PART_I!r} in _toc.yml"
    total = rt.part_minutes(pages)[rt.PART_I]
    assert total <= 7 * 60, f"Part I takes {total:.0f} minutes, more than 7 hours:\n{rt.table(pages)}"


def test_the_command_prints_the_table(capsys):
    rt.main([])
    out = capsys.readouterr().out
    assert f"== {rt.PART_I}" in out and "chapters/01_attention" in out and "total" in out
