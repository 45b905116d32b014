"""Exercise 4: the encoder."""

import torch
import torch.nn.functional as F
from torch import nn

from transformer.attention import padding_mask
from transformer.encoder import Encoder, EncoderLayer, FeedForward, LayerOptions, SublayerConnection

from ..checks import Miss, check_number, question
from ..learner import guard, need
from ..tensors import copy_weights, rand, randint, same, scramble
from .encoder_cases import RATES, dropped_share, ffn_dropout_effect, passed_on, sublayer_dropout_effect  # noqa: F401

NOTEBOOK = "04_encoder"

QUESTIONS = []


@question(QUESTIONS, 1, 2, "FeedForward", forbid=["transformer.encoder.FeedForward"])
def q1(ns):
    cls = need(ns, "FeedForward", "class")
    ref = scramble(FeedForward(8, 32, 0.1), 1).eval()
    mine = copy_weights(cls(8, 32, 0.1), ref, "FeedForward(8, 32, 0.1)").eval()
    x = rand(2, 5, 8, seed=2)
    same(mine(x), ref(x), "the output", "d_model=8, d_ff=32, eval mode")
    mine(x).pow(2).sum().backward()
    ref(x).pow(2).sum().backward()
    for name, p in ref.named_parameters():
        same(dict(mine.named_parameters())[name].grad, p.grad, f"the gradient of `{name}`")
    # Dropout belongs on the hidden activations. With W_1 = 0 and b_1 = 1 they are all ones whatever
    # x is: dropout there must change the output in training mode, dropout on x would not.
    mine = copy_weights(cls(8, 32, 0.5), ref, "FeedForward(8, 32, 0.5)")
    with torch.no_grad():
        mine.w_1.weight.zero_()
        mine.w_1.bias.fill_(1.0)
    torch.manual_seed(0)
    if torch.equal(mine.train()(x), mine.eval()(x)):
        raise Miss(
            "no dropout on the hidden activations in training mode",
            "dropout=0.5, W_1 = 0 and b_1 = 1 (hidden activations all 1): the training-mode output "
            "equals the eval-mode output.",
        )
    # ... and not on the output: with W_2 = 0 the output is b_2, whatever dropout does inside.
    with torch.no_grad():
        mine.w_2.weight.zero_()
    torch.manual_seed(0)
    same(
        mine.train()(x),
        mine.eval()(x),
        "the output in training mode",
        "dropout=0.5 and W_2 = 0, so the output must be b_2: dropout goes on the hidden activations only",
    )
    # the rate is the argument's: share of dropped activations and scaling, for several rates
    for p in RATES:
        what = f"FeedForward(32, 32, dropout={p})"
        ffn_dropout_effect(guard(cls(32, 32, p), what), p, what)


@question(
    QUESTIONS,
    2,
    3,
    "SublayerConnection (Post-LN and Pre-LN)",
    forbid=["transformer.encoder.SublayerConnection"],
)
def q2(ns):
    cls = need(ns, "SublayerConnection", "class")
    sublayer = scramble(nn.Linear(8, 8), 3)
    x = rand(2, 5, 8, seed=4)
    for pre_norm in (False, True):
        ref = scramble(SublayerConnection(8, 0.1, pre_norm), 5).eval()
        mine = copy_weights(cls(8, 0.1, pre_norm), ref, f"SublayerConnection(8, 0.1, pre_norm={pre_norm})").eval()
        same(
            mine(x, sublayer),
            ref(x, sublayer),
            "the output",
            f"pre_norm={pre_norm}, sublayer = a linear layer, eval mode",
        )
    for pre_norm in (False, True):
        mine = guard(cls(8, 0.5, pre_norm), f"SublayerConnection(8, 0.5, pre_norm={pre_norm})")
        torch.manual_seed(0)
        if torch.equal(mine.train()(x, torch.ones_like), mine.eval()(x, torch.ones_like)):
            raise Miss(
                "no dropout on the sublayer's output in training mode",
                f"pre_norm={pre_norm}, dropout=0.5, sublayer(x) = 1: the training-mode output equals the eval-mode output.",
            )
        # dropout on the sublayer's output only: when that output is 0, dropout changes nothing
        torch.manual_seed(0)
        same(
            mine.train()(x, torch.zeros_like),
            mine.eval()(x, torch.zeros_like),
            "the output in training mode",
            f"pre_norm={pre_norm}, dropout=0.5, sublayer(x) = 0: dropout goes on the sublayer's output, not on x or the sum",
        )
    # the rate is the argument's, in both variants
    for pre_norm in (False, True):
        for p in RATES:
            what = f"SublayerConnection(32, dropout={p}, pre_norm={pre_norm})"
            sublayer_dropout_effect(guard(cls(32, p, pre_norm), what), p, pre_norm, what)


@question(
    QUESTIONS,
    3,
    3,
    "EncoderLayer",
    forbid=["transformer.encoder.EncoderLayer", "transformer.encoder.Encoder"],
)
def q3(ns):
    cls = need(ns, "EncoderLayer", "class")
    x = rand(2, 6, 8, seed=6)
    ids = randint(1, 9, (2, 6), seed=7)
    ids[0, 4:] = 0
    mask = padding_mask(ids, 0)
    for pre_norm in (False, True):
        opts = LayerOptions(8, 2, 16, 0.1, pre_norm=pre_norm)
        ref = scramble(EncoderLayer(opts), 8).eval()
        mine = copy_weights(cls(opts), ref, f"EncoderLayer(LayerOptions(8, 2, 16, 0.1, pre_norm={pre_norm}))").eval()
        same(mine(x), ref(x), "the output", f"pre_norm={pre_norm}, no mask")
        same(mine(x, mask), ref(x, mask), "the output", f"pre_norm={pre_norm}, padding mask")
    xx = x.clone().requires_grad_()
    mine(xx, mask).pow(2).sum().backward()
    xr = x.clone().requires_grad_()
    ref(xr, mask).pow(2).sum().backward()
    same(xx.grad, xr.grad, "the gradient with respect to x")
    # hyperparameters passed on: each part's dropout rate and pre_norm, then the whole layer in training mode
    # (its parts are the package's, so the same seed gives the same dropout masks as the package's layer)
    x = rand(2, 6, 32, seed=15)
    for pre_norm in (False, True):
        for p in RATES:
            what = f"EncoderLayer(LayerOptions(32, 4, 32, dropout={p}, pre_norm={pre_norm}))"
            opts = LayerOptions(32, 4, 32, p, pre_norm=pre_norm)
            ref = scramble(EncoderLayer(opts), 9)
            mine = copy_weights(cls(opts), ref, what)
            passed_on(mine, p, pre_norm, what)
            torch.manual_seed(0)
            got = mine.train()(x, mask)
            torch.manual_seed(0)
            same(
                got,
                ref.train()(x, mask),
                "the output in training mode",
                f"{what}, padding mask, same random seed",
            )


@question(QUESTIONS, 4, 2, "parameters of an encoder layer with h = 16 and d_ff = 1024")
def q4(ns):
    check_number(ns, "answer_q4", sum(p.numel() for p in EncoderLayer(LayerOptions(512, 16, 1024)).parameters()), rel=0)


@question(QUESTIONS, 5, 2, "positions that change when a padded input changes")
def q5(ns):
    # The question's experiment with the package's layer: one sentence of 10 positions, the last three padding,
    # the input changed at position 8 only. An output that does not depend on x[0, 8] is computed from exactly
    # the same numbers in both runs, so it is bit for bit the same; 1e-6 only guards against a changed one that
    # would differ by less (none does: the smallest change of a changed position here is of order 0.1).
    torch.manual_seed(0)
    layer = EncoderLayer(LayerOptions(16, 4, 64, dropout=0.0)).eval()
    x = torch.randn(1, 10, 16)
    changed = x.clone()
    changed[0, 8] = torch.randn(16)
    mask = padding_mask(torch.tensor([[5, 3, 8, 2, 9, 4, 6, 0, 0, 0]]), 0)
    with torch.no_grad():
        moved = (layer(changed, mask) - layer(x, mask)).abs().amax(dim=-1) > 1e-6
    check_number(ns, "answer_q5", int(moved.sum()), rel=0)


@question(QUESTIONS, 6, 3, "find the bug in Encoder", forbid=["transformer.encoder.Encoder"])
def q6(ns):
    cls = need(ns, "Encoder", "class")
    x = rand(2, 6, 8, seed=16)
    ids = randint(1, 9, (2, 6), seed=17)
    ids[1, 3:] = 0
    mask = padding_mask(ids, 0)
    for pre_norm in (False, True):
        what = f"Encoder(LayerOptions(8, 2, 16, 0.1, pre_norm={pre_norm}), n_layers=3)"
        opts = LayerOptions(8, 2, 16, 0.1, pre_norm=pre_norm)
        ref = scramble(Encoder(opts, 3), 18).eval()
        mine = cls(opts, 3)
        if isinstance(mine, nn.Module):
            got, want = sum(p.numel() for p in mine.parameters()), sum(p.numel() for p in ref.parameters())
            if got != want:
                raise Miss(
                    f"{what} has {got:,} parameters, not {want:,}",
                    f"The package's encoder of this size has {want:,}: n_layers layers, each with its own weights"
                    f"{', and the final LayerNorm' if pre_norm else ''}.",
                )
        mine = copy_weights(mine, ref, what).eval()
        same(mine(x, mask), ref(x, mask), "the output", f"{what}, padding mask, eval mode")


@question(QUESTIONS, 7, 2, "what if there were no residual connections")
def q7(ns):
    # The question's experiment with the package's layers: 12 Post-LN layers built after torch.manual_seed(0),
    # run as they are and with every sublayer connection computing LayerNorm(Sublayer(x)) instead.
    def fresh_layers():
        torch.manual_seed(0)
        return [EncoderLayer(LayerOptions(16, 2, 32, dropout=0.0)).eval() for _ in range(12)]

    def mean_cosine(y):
        u = F.normalize(y, dim=-1)
        n = y.size(1)
        return (((u @ u.transpose(1, 2)).sum(dim=(1, 2)) - n) / (n * (n - 1))).mean().item()

    x = torch.randn(1, 10, 16, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        y = x
        for layer in fresh_layers():
            y = layer(y)
        with_residual = mean_cosine(y)
        y = x
        for layer in fresh_layers():
            attn, ffn, norms = layer.self_attn, layer.ffn, [s.norm for s in layer.sublayers]
            y = norms[0](attn(y, y, y))
            y = norms[1](ffn(y))
        without_residual = mean_cosine(y)
    # Deterministic: the same weights and input. Equivalent code that sums in another order differs by about
    # 1e-6 after 12 float32 layers; a relative error of 0.4% (0.002 on a difference of about 0.5) also accepts
    # the answer rounded to three decimals.
    check_number(ns, "answer_q7", without_residual - with_residual, rel=0.004, abs_tol=0.0)


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: "Two nn.Linear layers w_1 and w_2 and an nn.Dropout(dropout) between the ReLU and w_2.",
    2: (
        "Post-LN: self.norm(x + self.dropout(sublayer(x))). Pre-LN: x + self.dropout(sublayer(self.norm(x))). "
        "The dropout rate comes from the argument."
    ),
    3: (
        "Build self_attn, ffn and two SublayerConnection from opts' numbers; forward wraps lambda y: "
        "self.self_attn(y, y, y, mask) in the first sublayer and self.ffn in the second."
    ),
    4: (
        "Only the feed-forward part depends on d_ff; the attention's four projections do not depend on h. "
        "Count 2 * d_model * d_ff + d_ff + d_model for the FFN."
    ),
    5: (
        "Which queries may attend to key 8 under a padding mask? Every position goes through attention, then "
        "the residual and the FFN act per position."
    ),
    6: (
        "[layer] * n_layers repeats one object: the six layers share their weights. Count the parameters; "
        "build a new EncoderLayer for every slot instead."
    ),
    7: (
        "Write a SublayerConnection variant without `x +` (or patch forward) and run the same fresh_layers(); "
        "compare mean_cosine of both outputs."
    ),
}
