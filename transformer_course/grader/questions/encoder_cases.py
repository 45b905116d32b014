"""The cases and helpers of encoder.py's questions (exercise encoder): inputs, expected values, references."""

import copy

import torch

from ..checks import Miss
from ..learner import guard
from ..tensors import rand, same

RATES = (0.0, 0.3, 0.7)


def dropped_share(share, p, what):
    # 12,800 entries: the share of dropped ones has a standard deviation of at most 0.0045 around p,
    # so 0.03 (more than 6 standard deviations) is never exceeded by a dropout at rate p.
    if abs(share - p) > 0.03:
        raise Miss(
            f"in training mode the share of dropped entries is not the dropout rate ({what})",
            f"{share:.2f} of the entries that dropout acts on are dropped, expected about {p}: use the rate "
            "given by the `dropout` argument, not a fixed one.",
        )


def ffn_dropout_effect(ffn, p, what):
    """A FeedForward of width 32 -> 32 whose hidden activations are all 1 (W_1 = 0, b_1 = 1) and whose W_2 is the
    identity (b_2 = 0): its output is Dropout(1), entries 0 or 1/(1-p) in training mode, 1 in eval mode."""
    with torch.no_grad():
        ffn.w_1.weight.zero_()
        ffn.w_1.bias.fill_(1.0)
        ffn.w_2.weight.copy_(torch.eye(32))
        ffn.w_2.bias.zero_()
    x = rand(8, 50, 32, seed=12)
    torch.manual_seed(0)
    out = ffn.train()(x)
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        same(out, x, "the output", f"{what}, training mode")
    dropped = out.abs() < 1e-6
    dropped_share(dropped.float().mean().item(), p, what)
    same(
        out[~dropped],
        torch.full_like(out[~dropped], 1 / (1 - p)),
        "the kept hidden activations in training mode",
        f"{what}, hidden activations all 1: kept ones are scaled by 1/(1 - {p})",
    )
    same(
        ffn.eval()(x),
        torch.ones_like(x),
        "the output in eval mode",
        f"{what}, hidden activations all 1: no dropout in eval mode",
    )


def sublayer_dropout_effect(sub, p, pre_norm, what):
    """Dropout(sublayer(.)) with sublayer = 1 everywhere. Pre-LN: output - x is 0 (dropped) or 1/(1-p) (kept).
    Post-LN on x = 0: LayerNorm of a vector of zeros and equal kept values, so the dropped entries are the
    negative outputs (LayerNorm removes the 1/(1-p) scale, which the Pre-LN case checks)."""
    x = rand(8, 50, 32, seed=13) if pre_norm else torch.zeros(8, 50, 32)
    torch.manual_seed(0)
    out = sub.train()(x, torch.ones_like)
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        same(out, x, "the output", f"{what}, training mode")
    if pre_norm:
        delta = out - x
        dropped = delta.abs() < 1e-5
        dropped_share(dropped.float().mean().item(), p, what)
        same(
            delta[~dropped],
            torch.full_like(delta[~dropped], 1 / (1 - p)),
            "output - x for the kept entries",
            f"{what}, training mode, sublayer(x) = 1: kept entries are scaled by 1/(1 - {p})",
        )
        same(sub.eval()(x, torch.ones_like), x + 1, "the output in eval mode", f"{what}, sublayer(x) = 1")
    else:
        dropped_share((out < -1e-3).float().mean().item(), p, what)
        same(
            sub.eval()(x, torch.ones_like),
            torch.zeros_like(x),
            "the output in eval mode",
            f"{what}, x = 0, sublayer(x) = 1: LayerNorm of a constant vector is 0",
        )


def passed_on(mine, p, pre_norm, what):
    "The layer's parts got the layer's dropout rate and pre_norm (they are the package's FeedForward and SublayerConnection)."
    ffn = copy.deepcopy(mine.ffn)
    try:
        ffn_dropout_effect(guard(ffn, f"{what}.ffn"), p, f"{what}.ffn")
    except Miss as miss:
        raise Miss(f"the feed-forward network does not get the layer's dropout rate ({what})", miss.hint) from None
    x = rand(2, 6, 32, seed=14)
    for i, sub in enumerate(mine.sublayers):
        # Pre-LN with sublayer(x) = 0 returns x; Post-LN returns LayerNorm(x)
        with torch.no_grad():
            is_pre = torch.allclose(copy.deepcopy(sub).eval()(x, torch.zeros_like), x)
        if is_pre != pre_norm:
            raise Miss(
                f"sublayers[{i}] is {'Pre-LN' if is_pre else 'Post-LN'} although pre_norm={pre_norm} ({what})",
                "Pass pre_norm on to both sublayer connections.",
            )
        sub = copy.deepcopy(sub)
        with torch.no_grad():  # LayerNorm's defaults, so that the dropped entries can be read off
            sub.norm.weight.fill_(1.0)
            sub.norm.bias.zero_()
        try:
            sublayer_dropout_effect(sub, p, pre_norm, f"{what}.sublayers[{i}]")
        except Miss as miss:
            raise Miss(f"sublayers[{i}] does not get the layer's dropout rate ({what})", miss.hint) from None
