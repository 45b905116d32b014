"""Exercise 6: the whole model."""

import torch
import torch.nn.functional as F

from transformer.attention import causal_mask
from transformer.model import Transformer, TransformerConfig, count_parameters

from ..checks import Miss, check_choice, check_number, question
from ..learner import need
from ..tensors import randint, same

NOTEBOOK = "06_model"
QUESTIONS = []


def small(src_vocab=13, tgt_vocab=13, **kw):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(src_vocab, tgt_vocab, d_model=8, n_layers=2, h=2, d_ff=16, **kw)).eval()


def padded(batch, length, pad, seed, high=13, pads=()):
    "Random non-padding ids (4 .. high-1), with `pads` = {row: first padded position}."
    ids = randint(4, high, (batch, length), seed=seed)
    for row, start in dict(pads).items():
        ids[row, start:] = pad
    return ids


@question(
    QUESTIONS,
    1,
    3,
    "the forward pass from the model's parts",
    forbid=[
        "transformer.model.Transformer.forward",
        "transformer.model.Transformer.encode",
        "transformer.model.Transformer.decode",
    ],
)
def q1(ns):
    f = need(ns, "transformer_forward", "function")
    cases = []
    for pad in (0, 3):  # padding in the source and in the target, source and target of different lengths
        cases.append(
            (
                small(pad_id=pad),
                padded(2, 7, pad, 1, pads={0: 5}),
                padded(2, 5, pad, 2, pads={1: 3}),
                pad,
                f"pad_id={pad}, padded source (2, 7) and target (2, 5)",
            )
        )
    # a batch of one sentence pair, padded on both sides, and one without padding: masks must keep their batch axis
    cases.append(
        (
            small(),
            padded(1, 6, 0, 3, pads={0: 4}),
            padded(1, 5, 0, 4, pads={0: 3}),
            0,
            "batch of 1, padded source (1, 6) and target (1, 5)",
        )
    )
    cases.append(
        (
            small(),
            padded(1, 4, 0, 5),
            padded(1, 6, 0, 6),
            0,
            "batch of 1, no padding, source (1, 4), target (1, 6)",
        )
    )
    # three pairs, vocabularies of different sizes (src 11, tgt 17), a Pre-LN model
    cases.append(
        (
            small(11, 17, pre_norm=True),
            padded(3, 5, 0, 7, high=11, pads={0: 2, 2: 4}),
            padded(3, 6, 0, 8, high=17, pads={1: 1, 2: 5}),
            0,
            "batch of 3, src_vocab=11, tgt_vocab=17, pre_norm=True, padding in both",
        )
    )
    for model, src, tgt, pad, case in cases:
        with torch.no_grad():
            same(f(model, src, tgt, pad), model(src, tgt), "the output", f"logits for {case}, eval mode")


def sgd_step(model, lr=0.5):
    "One SGD step on a loss that uses the source table, the target table and the output projection."
    src, tgt_in, tgt_out = (
        randint(1, 13, (2, 6), seed=20),
        randint(1, 13, (2, 5), seed=21),
        randint(1, 13, (2, 5), seed=22),
    )
    model.zero_grad()
    F.cross_entropy(model(src, tgt_in).flatten(0, 1), tgt_out.flatten()).backward()
    with torch.no_grad():
        for p in model.parameters():  # each Parameter once, as an optimizer sees them
            if p.grad is not None:
                p -= lr * p.grad


@question(QUESTIONS, 2, 2, "tie_weights")
def q2(ns):
    f = need(ns, "tie_weights", "function")
    model = small(tie_output=False)
    original = model.tgt_embed.lut.weight.detach().clone()
    f(model)
    w = model.tgt_embed.lut.weight
    if model.generator.weight is not w:
        raise Miss(
            "the output projection does not share the target embedding",
            "After tie_weights, model.generator.weight must be the same Parameter object as "
            "model.tgt_embed.lut.weight (`is`), not a copy and not a second Parameter over the same data.",
        )
    if model.src_embed.lut.weight is not w:
        raise Miss(
            "the source embedding is not shared although the vocabularies are equal",
            "With src_vocab == tgt_vocab all three matrices are one Parameter.",
        )
    same(w, original, "the shared matrix", "keep the target embedding's values")
    reference = small(share_embeddings=True)
    if count_parameters(model)["total"] != count_parameters(reference)["total"]:
        raise Miss(
            "the parameter count is not that of a fully tied model",
            f"Expected {count_parameters(reference)['total']} parameters.",
        )
    # model.parameters() is what an optimizer receives: the shared matrix must be in it once, and nothing else new
    mine_params, ref_params = list(model.parameters()), list(reference.parameters())
    if len(mine_params) != len(ref_params) or sum(p.numel() for p in mine_params) != sum(p.numel() for p in ref_params):
        raise Miss(
            "model.parameters() does not list the shared matrix exactly once",
            f"Expected {len(ref_params)} tensors with {sum(p.numel() for p in ref_params)} numbers, got "
            f"{len(mine_params)} with {sum(p.numel() for p in mine_params)}.",
        )
    # a gradient step moves the shared matrix once, by the sum of the gradients of its three uses:
    # the result must equal the package's tied model after the same step, through every name
    reference.load_state_dict(model.state_dict())
    sgd_step(model)  # both in eval mode: no dropout, the same step
    sgd_step(reference)
    for what, got in (
        ("model.generator.weight", model.generator.weight),
        ("model.tgt_embed.lut.weight", model.tgt_embed.lut.weight),
        ("model.src_embed.lut.weight", model.src_embed.lut.weight),
    ):
        same(
            got,
            reference.generator.weight,
            f"{what} after one gradient step",
            "SGD on a loss that reads both tables and uses the output projection",
        )
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(13, 17, d_model=8, n_layers=1, h=2, d_ff=16, tie_output=False))
    src_before = model.src_embed.lut.weight
    f(model)
    if model.generator.weight is not model.tgt_embed.lut.weight:
        raise Miss("the output projection does not share the target embedding", "Case src_vocab=13, tgt_vocab=17.")
    if model.src_embed.lut.weight is not src_before:
        raise Miss(
            "the source embedding changed although the vocabularies differ",
            "Case src_vocab=13, tgt_vocab=17.",
        )


def meta_model(cfg):
    "The package's model for `cfg`, built on the meta device (shapes only: no memory, no time)."
    with torch.device("meta"):
        return Transformer(cfg)


# Computed once here, when the chapter's questions are loaded, not in every question's process:
# the first model built on the meta device can cost about a second.
CHANGED = count_parameters(meta_model(TransformerConfig.base(37000, 37000, share_embeddings=True, h=16, d_ff=1024)))[
    "total"
]
_parts = count_parameters(meta_model(TransformerConfig.base(8000, 10000)))
EMBEDDING_SHARE = (_parts["src_embed"] + _parts["tgt_embed"]) / _parts["total"]
PRE_LN_EXTRA = (
    count_parameters(meta_model(TransformerConfig.base(37000, 37000, share_embeddings=True, pre_norm=True)))["total"]
    - count_parameters(meta_model(TransformerConfig.base(37000, 37000, share_embeddings=True)))["total"]
)


@question(QUESTIONS, 3, 2, "parameters after changing h and d_ff")
def q3(ns):
    check_number(ns, "answer_q3", CHANGED, rel=0)


@question(QUESTIONS, 4, 2, "share of the parameters in the embeddings")
def q4(ns):
    # three significant digits asked: a relative error of 2e-3 accepts 0.173 for 0.17273
    check_number(ns, "answer_q4", EMBEDDING_SHARE, rel=2e-3, abs_tol=0)


@question(QUESTIONS, 5, 2, "parameters Pre-LN adds")
def q5(ns):
    check_number(ns, "answer_q5", PRE_LN_EXTRA, rel=0)


@question(QUESTIONS, 6, 2, "the gradient of a tied matrix")
def q6(ns):
    check_choice(ns, "answer_q6", correct="c", options="abcd")


def changed_positions(seed=0):
    "Target positions whose logits change when the target padding mask is left out (question 7's experiment)."
    torch.manual_seed(seed)
    model = Transformer(TransformerConfig(11, 13, d_model=32, n_layers=2, h=4, d_ff=64, dropout=0.0)).eval()
    src = torch.tensor([[5, 3, 8, 2, 9, 4, 7], [6, 2, 2, 8, 3, 0, 0]])
    tgt = torch.tensor([[1, 4, 9, 12, 3, 2], [1, 7, 5, 2, 0, 0]])
    with torch.no_grad():
        change = (model(src, tgt) - model(src, tgt, tgt_mask=causal_mask(tgt.size(1)))).abs().amax(dim=-1)
    # unchanged positions are bit-for-bit equal (0.0), changed ones move by about 0.1: 1e-5 separates them
    return int((change > 1e-5).sum())


@question(QUESTIONS, 7, 2, "without the target padding mask")
def q7(ns):
    check_number(ns, "answer_q7", changed_positions(), rel=0)


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Source mask from padding, target mask from padding and causal_mask; then "
        "model.pos(model.src_embed(src)) through model.encoder, the same for the target through model.decoder "
        "with the memory, then model.generator."
    ),
    2: (
        "Assign the Parameter object itself: model.generator.weight = model.tgt_embed.lut.weight (and the "
        "source table when the vocabularies have the same size). Copying the values makes a second Parameter."
    ),
    3: (
        "Build the model on device='meta' and call count_parameters; on paper, only the feed-forward rows "
        "depend on d_ff, and h changes nothing."
    ),
    4: (
        "Count the two tables (8000 and 10000 rows of 512) and divide by count_parameters' total of the model "
        "built on the meta device."
    ),
    5: (
        "A Pre-LN stack adds one final LayerNorm after the encoder and one after the decoder; each LayerNorm "
        "has a weight and a bias of d_model."
    ),
    6: (
        "Run the cell's two backward passes and compare tied.generator.weight.grad with G, E and G + E using "
        "torch.allclose."
    ),
    7: (
        "Build the causal-only mask yourself and call model.decode with it; compare with model(src, tgt) at "
        "the real target positions."
    ),
}
