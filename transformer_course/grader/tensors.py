"""Tensors for the checks: deterministic inputs (`rand`, `randint`), comparison with the reference (`same`), and
the reference's weights loaded into the learner's module (`copy_weights`) or random ones everywhere (`scramble`)."""

import torch
from torch import nn

from .checks import Miss
from .learner import guard


def _preview(t, n=4):
    flat = t.detach().reshape(-1)[:n].tolist()
    return (
        "["
        + ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in flat)
        + (", ...]" if t.numel() > n else "]")
    )


def _unravel(flat, shape):
    "Index tuple of a flat position (torch.unravel_index would import torch._dynamo: a second per question)."
    index = []
    for size in reversed(shape):
        flat, j = divmod(flat, size)
        index.append(j)
    return tuple(reversed(index))


def same(got, expected, what, case="", atol=1e-5, rtol=1e-4):
    "`got` must be a tensor with the shape, kind (bool or not) and values of `expected`."
    where = f" ({case})" if case else ""
    if not isinstance(got, torch.Tensor):
        raise Miss(f"{what} is not a tensor{where}", f"Got a {type(got).__name__}.")
    if tuple(got.shape) != tuple(expected.shape):
        raise Miss(
            f"{what} has the wrong shape{where}",
            f"Expected shape {tuple(expected.shape)}, got {tuple(got.shape)}.",
        )
    if expected.dtype == torch.bool and got.dtype != torch.bool:
        raise Miss(f"{what} is not a boolean tensor{where}", f"Got dtype {got.dtype}; masks are torch.bool.")
    if expected.is_floating_point() and got.is_floating_point() and got.dtype != expected.dtype:
        # float64 from a float32 input (a numpy-built buffer, say) passes a comparison after a cast, then
        # fails in the next float32 layer
        raise Miss(
            f"{what} has dtype {got.dtype}, not {expected.dtype}{where}",
            "An output keeps its input's floating-point dtype: a table built with numpy is float64 until "
            "converted (torch.from_numpy(a).float(), or build it with torch).",
        )
    if not expected.is_floating_point() and expected.dtype != torch.bool and got.dtype != expected.dtype:
        # ids must keep their integer dtype: compared after a cast, float ids would pass and then fail in nn.Embedding
        raise Miss(
            f"{what} has dtype {got.dtype}, not {expected.dtype}{where}",
            "Token ids and other integer results keep their integer dtype (torch.long): "
            "build them from integer tensors, e.g. torch.full_like(ids, value) or torch.cat of long tensors.",
        )
    if expected.is_floating_point() and not (got.is_floating_point() or got.is_complex()):
        raise Miss(f"{what} has dtype {got.dtype}, not a floating-point dtype{where}", f"Expected {expected.dtype}.")
    if expected.dtype == torch.bool or not expected.is_floating_point():
        if not torch.equal(got.to(expected.dtype), expected):
            bad = (got.to(expected.dtype) != expected).nonzero()[0].tolist()
            raise Miss(
                f"{what} has wrong entries{where}",
                f"{int((got.to(expected.dtype) != expected).sum())} of {expected.numel()} entries differ; "
                f"the first at index {bad}: expected {expected[tuple(bad)].item()}, got {got[tuple(bad)].item()}.",
            )
        return
    got = got.detach().to(expected.dtype)
    expected = expected.detach()
    if torch.isnan(got).any() and not torch.isnan(expected).any():
        raise Miss(f"{what} contains NaN{where}", f"{int(torch.isnan(got).sum())} NaN entries.")
    if not torch.allclose(got, expected, atol=atol, rtol=rtol):
        err = (got - expected).abs().nan_to_num(float("inf"))
        i = _unravel(int(err.argmax()), err.shape)
        raise Miss(
            f"{what} has wrong values{where}",
            f"Largest error {err.max().item():.3g} at index {list(i)}: expected {expected[i].item():.5g}, "
            f"got {got[i].item():.5g}. Expected starts {_preview(expected)}, got {_preview(got)}.",
        )


def copy_weights(module, reference, what):
    "Load the reference module's weights into the learner's module (same parameter names required)."
    if not isinstance(module, nn.Module):
        raise Miss(f"{what} is not an nn.Module", f"Got a {type(module).__name__}.")
    want, have = reference.state_dict(), module.state_dict()
    missing = [k for k in want if k not in have]
    extra = [k for k in have if k not in want]
    if missing or extra:
        raise Miss(
            f"{what} has different parameter names than asked",
            f"Missing: {missing[:6] or 'none'}; unexpected: {extra[:6] or 'none'}.",
        )
    for k, v in want.items():
        if tuple(have[k].shape) != tuple(v.shape):
            raise Miss(
                f"{what}: `{k}` has the wrong shape",
                f"Expected {tuple(v.shape)}, got {tuple(have[k].shape)}.",
            )
    module.load_state_dict(want)
    return guard(module, what)


def scramble(module, seed):
    "Random weights everywhere, LayerNorm included, so that a missing piece shows."
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    return module


def rand(*shape, seed=0, **kw):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), **kw)


def randint(low, high, shape, seed=0):
    return torch.randint(low, high, shape, generator=torch.Generator().manual_seed(seed))
