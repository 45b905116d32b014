"""The capstone: your own Transformer, from your pieces of exercises 1 to 5, learns the reversal task."""

from pathlib import Path

import torch

from transformer.model import Transformer, TransformerConfig

from .. import capstone, checks
from ..checks import Miss, question
from ..learner import guard, need
from ..tensors import randint, same

NOTEBOOK = "capstone"
QUESTIONS = []


def counted(pieces):
    "The pieces as subclasses that count how often each is built: proof that the model came from `pieces`."
    built = {name: 0 for name in pieces}

    def counting(name, cls):
        def __init__(self, *args, **kwargs):
            built[name] += 1
            cls.__init__(self, *args, **kwargs)

        return type(cls.__name__, (cls,), {"__init__": __init__})

    return {name: counting(name, cls) for name, cls in pieces.items()}, built


@question(QUESTIONS, 1, 4, "assemble your Transformer")
def q1(ns):
    model_class = need(ns, "MyTransformer", "class")
    cfg = TransformerConfig(src_vocab=11, tgt_vocab=13, d_model=32, n_layers=2, h=4, d_ff=64, dropout=0.1, max_len=40)
    pieces, built = counted(
        {
            k: v
            for k, v in capstone.package_pieces().items()
            if k in ("Embeddings", "PositionalEncoding", "EncoderLayer", "DecoderLayer")
        }
    )
    torch.manual_seed(0)
    mine, reference = model_class(cfg, pieces), Transformer(cfg)
    want = {
        "Embeddings": 2,
        "PositionalEncoding": 1,
        "EncoderLayer": cfg.n_layers,
        "DecoderLayer": cfg.n_layers,
    }
    if built != want:
        raise Miss(
            "MyTransformer does not build its layers from `pieces`",
            f"Built from pieces: {built}; expected {want} (two tables, one positional encoding shared by "
            "both sides, n_layers layers on each side).",
        )
    if getattr(mine, "cfg", None) is not cfg:
        raise Miss("MyTransformer does not keep `cfg` as self.cfg", "The package's loop and decoder read model.cfg.")
    try:
        capstone.start_from(mine, reference.state_dict())
    except capstone.NamesDiffer as e:
        raise Miss(
            "MyTransformer has different parameter names than asked",
            f"{e}. Use the attribute names src_embed, tgt_embed, pos, encoder_layers, decoder_layers, generator.",
        ) from None
    if getattr(getattr(mine, "generator", None), "weight", None) is not mine.tgt_embed.lut.weight:
        raise Miss(
            "the output projection is not tied to the target embedding",
            "generator.weight must be the same Parameter object as tgt_embed.lut.weight (assign it, do not copy).",
        )
    if mine.generator.bias is not None:
        raise Miss("the output projection has a bias", "Use nn.Linear(d_model, tgt_vocab, bias=False).")
    guard(mine, "MyTransformer")
    mine.eval(), reference.eval()
    src, tgt = randint(4, 11, (3, 7), seed=1), randint(4, 13, (3, 5), seed=2)
    src[0, 5:], src[2, 3:], tgt[1, 4:] = 0, 0, 0  # padded rows, pad_id 0
    src_mask = src.ne(0)[:, None, None, :]
    tgt_mask = tgt.ne(0)[:, None, None, :] & torch.ones(5, 5, dtype=torch.bool).tril()
    case = "padded batch of 3, len_s 7, len_t 5, n_layers 2, src_vocab 11, tgt_vocab 13"
    with torch.no_grad():
        memory = reference.encode(src, src_mask)
        same(mine.encode(src, src_mask), memory, "encode(src, src_mask)", case)
        same(
            mine.decode(tgt, memory, src_mask, tgt_mask),
            reference.decode(tgt, memory, src_mask, tgt_mask),
            "decode(tgt, memory, src_mask, tgt_mask)",
            case,
        )
        same(mine(src, tgt), reference(src, tgt), "forward(src, tgt) with the masks left to the model", case)
        same(
            mine(src[:1], tgt[:1, :1]),
            reference(src[:1], tgt[:1, :1]),
            "forward(src, tgt)",
            "one sentence, one target token",
        )


@question(QUESTIONS, 2, 6, "your Transformer learns the reversal task", timeout=1800)
def q2(ns):
    path = Path(checks.NOTEBOOK_PATH)
    setup, sources = checks.notebook_cells()  # the saved notebook, or the cells a notebook's kernel ran
    if 1 not in sources:
        raise Miss("question 1's cell is missing", "Question 2 trains the MyTransformer of question 1.")
    if capstone.STUB in sources[1]:
        raise NotImplementedError  # question 1 is still the exercise's stub: not answered yet
    mine = {"__name__": "__main__", "__builtins__": __builtins__}
    exec(compile(setup, f"{checks.LEARNER} setup>", "exec"), mine)
    exec(compile(sources[1], f"{checks.LEARNER} question 1>", "exec"), mine)
    model_class = need(mine, "MyTransformer", "class")
    try:
        yours, package, advice = capstone.verdict(model_class, path.parent)
    except capstone.NotAnswered as e:
        raise Miss(
            "one of your pieces is not ready",
            f"{e}. The capstone reads your answers from the exercise notebooks in {path.parent}.",
        ) from None
    except capstone.NamesDiffer as e:
        raise Miss("MyTransformer's parameters are not named as question 1 asks", str(e)) from None
    if advice:
        raise Miss(f"your model reaches {yours:.2f} exact match, the package's {package:.2f}", advice)


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Build the pieces with the attribute names the question lists, tie generator.weight to "
        "tgt_embed.lut.weight, share one PositionalEncoding for both sides, and build the masks in forward "
        "when they are None."
    ),
    2: (
        "Nothing to write: if your model falls short, the grader names the first piece whose package version "
        "makes it learn; recheck that piece in training mode (dropout)."
    ),
}
