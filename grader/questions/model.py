"""Exercise 6: the whole model."""
import torch

from transformer.model import Transformer, TransformerConfig, count_parameters
from ..checks import Miss, check_number, need, question, randint, same

NOTEBOOK = "06_model"
QUESTIONS = []


def small(**kw):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(13, 13, d_model=8, n_layers=2, h=2, d_ff=16, **kw)).eval()


@question(QUESTIONS, 1, 3, "the forward pass from the model's parts",
          forbid=["transformer.model.Transformer.forward", "transformer.model.Transformer.encode",
                  "transformer.model.Transformer.decode"])
def q1(ns):
    f = need(ns, "transformer_forward", "function")
    for pad in (0, 3):
        model = small(pad_id=pad)
        src = randint(4, 13, (2, 7), seed=1)
        src[0, 5:] = pad
        tgt = randint(4, 13, (2, 5), seed=2)
        tgt[1, 3:] = pad
        with torch.no_grad():
            same(f(model, src, tgt, pad), model(src, tgt), "the output",
                 f"logits for pad_id={pad}, padded source (2, 7) and target (2, 5), eval mode")


@question(QUESTIONS, 2, 2, "tie_weights")
def q2(ns):
    f = need(ns, "tie_weights", "function")
    model = small(tie_output=False)
    original = model.tgt_embed.lut.weight.detach().clone()
    f(model)
    w = model.tgt_embed.lut.weight
    if model.generator.weight is not w:
        raise Miss("the output projection does not share the target embedding",
                   "After tie_weights, model.generator.weight must be the same Parameter object as model.tgt_embed.lut.weight.")
    if model.src_embed.lut.weight is not w:
        raise Miss("the source embedding is not shared although the vocabularies are equal",
                   "With src_vocab == tgt_vocab all three matrices are one Parameter.")
    same(w, original, "the shared matrix", "keep the target embedding's values")
    want = count_parameters(small(share_embeddings=True))["total"]
    if count_parameters(model)["total"] != want:
        raise Miss("the parameter count is not that of a fully tied model", f"Expected {want} parameters.")
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(13, 17, d_model=8, n_layers=1, h=2, d_ff=16, tie_output=False))
    src_before = model.src_embed.lut.weight
    f(model)
    if model.generator.weight is not model.tgt_embed.lut.weight:
        raise Miss("the output projection does not share the target embedding", "Case src_vocab=13, tgt_vocab=17.")
    if model.src_embed.lut.weight is not src_before:
        raise Miss("the source embedding changed although the vocabularies differ", "Case src_vocab=13, tgt_vocab=17.")


def total(cfg):
    "Parameters of the package's model for `cfg`, built on the meta device (no memory, no time)."
    with torch.device("meta"):
        return count_parameters(Transformer(cfg))["total"]


# Computed once here, when the chapter's questions are loaded, not in every question's process:
# the first model built on the meta device costs about a second (it imports torch._dynamo).
BASE = total(TransformerConfig.base(37000, 37000, share_embeddings=True))
BIG = total(TransformerConfig.big(37000, 37000, share_embeddings=True))
SAVED = (total(TransformerConfig.base(8000, 10000, n_layers=1, tie_output=False))
         - total(TransformerConfig.base(8000, 10000, n_layers=1)))


@question(QUESTIONS, 3, 1, "parameters of the base model")
def q3(ns):
    check_number(ns, "answer_q3", BASE, rel=0)


@question(QUESTIONS, 4, 1, "parameters of the big model")
def q4(ns):
    check_number(ns, "answer_q4", BIG, rel=0)


@question(QUESTIONS, 5, 1, "parameters saved by weight tying")
def q5(ns):
    check_number(ns, "answer_q5", SAVED, rel=0)
