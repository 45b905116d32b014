"""One module per exercise notebook; each has NOTEBOOK (its name) and QUESTIONS (a list of checks.Question).

An exercise is numbered by the chapter it goes with: 09_1_subwords goes with section 9.1. The capstone,
which puts exercises 1 to 5 together, has no number. To add an exercise, write
`transformer_course/grader/questions/<module>.py` and add its line here (see transformer_course/grader/README.md).
"""

import importlib
import re

NOTEBOOKS = {
    "01_attention": "attention",
    "02_multi_head": "multi_head",
    "03_embeddings": "embeddings",
    "04_encoder": "encoder",
    "05_decoder": "decoder",
    "06_model": "model",
    "07_training": "training",
    "08_generation": "generation",
    "09_multi30k": "multi30k",
    "09_1_subwords": "subwords",
    "10_translation": "translation",
    "13_beyond": "beyond",
    "capstone": "capstone",
}


def number(notebook):
    "The chapter number part of a notebook's name: '09_1' for '09_1_subwords', '01' for '01_attention'."
    m = re.match(r"\d+(?:_\d+)*(?=_)", notebook)
    return m.group(0) if m else notebook


def chapter(name):
    """(notebook name, questions) for `name`: the notebook's name ('09_1_subwords') or its number ('09_1',
    '01'); (None, []) if unknown."""
    found = [nb for nb in NOTEBOOKS if nb == name] or [nb for nb in NOTEBOOKS if name and number(nb) == name]
    if not found:
        return None, []
    notebook, module = found[0], NOTEBOOKS[found[0]]
    try:
        mod = importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{module}":
            raise  # a real import error inside the module
        raise ValueError(
            f"exercise {notebook} has no questions yet (no transformer_course/grader/questions/{module}.py)"
        ) from None
    if mod.NOTEBOOK != notebook:
        raise ValueError(
            f"transformer_course/grader/questions/{module}.py says NOTEBOOK = {mod.NOTEBOOK!r}, not {notebook!r}"
        )
    for q in mod.QUESTIONS:  # the nudge qN.hint() prints, from the module's HINTS
        q.hint = q.hint or getattr(mod, "HINTS", {}).get(q.number, "")
    return notebook, sorted(mod.QUESTIONS, key=lambda q: q.number)
