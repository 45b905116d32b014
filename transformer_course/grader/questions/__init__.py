"""One module per exercise notebook; each has NOTEBOOK (its name) and QUESTIONS (a list of checks.Question).

To add an exercise, write `transformer_course/grader/questions/<module>.py` and add its line here
(see transformer_course/grader/README.md).
"""
import importlib

NOTEBOOKS = {"01_attention": "attention", "02_multi_head": "multi_head", "03_embeddings": "embeddings",
             "04_encoder": "encoder", "05_decoder": "decoder", "06_model": "model",
             "07_training": "training", "08_generation": "generation", "09_capstone": "capstone",
             "10_subwords": "subwords"}


def chapter(name):
    "(notebook name, questions) for `name` ('01_attention' or just '01'); (None, []) if unknown."
    for notebook, module in NOTEBOOKS.items():
        if name and (notebook == name or notebook.split("_")[0] == name):
            try:
                mod = importlib.import_module(f"{__name__}.{module}")
            except ModuleNotFoundError as e:
                if e.name != f"{__name__}.{module}":
                    raise                                    # a real import error inside the module
                raise ValueError(f"exercise {notebook} has no questions yet (no transformer_course/grader/questions/{module}.py)") from None
            if mod.NOTEBOOK != notebook:
                raise ValueError(f"transformer_course/grader/questions/{module}.py says NOTEBOOK = {mod.NOTEBOOK!r}, not {notebook!r}")
            return notebook, sorted(mod.QUESTIONS, key=lambda q: q.number)
    return None, []
