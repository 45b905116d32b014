"""One module per exercise notebook; each has NOTEBOOK (its name) and QUESTIONS (a list of checks.Question)."""
import importlib

NOTEBOOKS = {"01_attention": "attention", "02_multi_head": "multi_head", "03_embeddings": "embeddings",
             "04_encoder": "encoder", "05_decoder": "decoder", "06_model": "model",
             "07_training": "training", "08_decoding": "decoding"}


def chapter(name):
    "(notebook name, questions) for `name` ('01_attention' or just '01'); (None, []) if unknown."
    for notebook, module in NOTEBOOKS.items():
        if name and (notebook == name or notebook.split("_")[0] == name):
            mod = importlib.import_module(f"{__name__}.{module}")
            return notebook, sorted(mod.QUESTIONS, key=lambda q: q.number)
    return None, []
