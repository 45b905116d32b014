"""The learner's names: `need` one (a function comes back guarded against changing its inputs in place),
`guard` a module the same way, `need_buffer` for a table that must be a buffer."""

import copy
import inspect

import torch

from .ban import not_the_reference
from .checks import Miss


def need(ns, name, kind=None):
    """The learner's `name`, which must exist (and be a class / callable when `kind` says so).
    A function comes back wrapped: calling it raises Miss when it changes a tensor argument in place."""
    if name not in ns:
        raise Miss(f"`{name}` is not defined", f"Define `{name}` in this question's cell (keep the name).")
    obj = ns[name]
    not_the_reference(obj)
    if kind == "class" and not inspect.isclass(obj):
        raise Miss(f"`{name}` is not a class", f"`{name}` is a {type(obj).__name__}.")
    if kind == "function":
        if not callable(obj):
            raise Miss(f"`{name}` is not a function", f"`{name}` is a {type(obj).__name__}.")

        def guarded(*args, **kwargs):
            before = _snapshot(args, kwargs)
            out = obj(*args, **kwargs)
            _unchanged(before, f"`{name}`")
            return out

        return guarded
    return obj


# A learner's code that modifies its input (`query /= 8`, `x += y`) could make the reference,
# computed on the same tensors afterwards, agree with a wrong answer or disagree with a right
# one. Such code is told so instead.
# The same holds for plain Python data (a dict of word counts, a list of examples): a caller's data changed
# by the function it passed them to is a bug that no return value shows.
PLAIN = (str, bytes, int, float, bool, type(None))


def _plain(x, depth=0):
    "True for Python data made of dicts, lists, tuples and sets of numbers and strings (copied and compared cheaply)."
    if isinstance(x, PLAIN):
        return True
    if depth > 4 or not isinstance(x, (dict, list, tuple, set)) or len(x) > 100_000:
        return False
    items = [*x.keys(), *x.values()] if isinstance(x, dict) else x
    return all(_plain(v, depth + 1) for v in items)


def _snapshot(args, kwargs):
    values = (*args, *kwargs.values())
    return [(t, t.detach().clone()) for t in values if isinstance(t, torch.Tensor)] + [
        (x, copy.deepcopy(x)) for x in values if isinstance(x, (dict, list, set)) and _plain(x)
    ]


def _unchanged(snapshot, what):
    for t, before in snapshot:
        if not isinstance(t, torch.Tensor):
            if t != before:
                raise Miss(
                    f"{what} changed its input in place",
                    f"The {type(t).__name__} passed in was modified (it was {_short_repr(before)}, it is "
                    f"{_short_repr(t)} after the call): work on a copy and leave the caller's data as it is.",
                )
            continue
        if t.shape != before.shape or not torch.equal(t.detach(), before):
            raise Miss(
                f"{what} changed its input in place",
                "An input tensor was modified: write x = x + y instead of x += y, "
                "masked_fill instead of masked_fill_, and so on.",
            )


def _short_repr(x, limit=80):
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def guard(module, what):
    "Make calls of the learner's module raise Miss when its forward changes an input tensor in place."
    pending = []

    def before(mod, args, kwargs):
        pending.append(_snapshot(args, kwargs))

    def after(mod, args, kwargs, out):
        _unchanged(pending.pop(), what)

    module.register_forward_pre_hook(before, with_kwargs=True)
    module.register_forward_hook(after, with_kwargs=True)
    return module


def need_buffer(module, name, what, dtype=None):
    """`module.<name>` must be a buffer (moves with .to(), is not trained), not a parameter or a plain attribute."""
    buffers, params = dict(module.named_buffers()), dict(module.named_parameters())
    if name in params:
        raise Miss(
            f"{what}: `{name}` is a parameter",
            "A fixed table is not trained: register it with self.register_buffer, so the optimizer never sees it.",
        )
    if name not in buffers:
        raise Miss(
            f"{what}: `{name}` is not a buffer",
            "Keep the table with self.register_buffer(...): a plain "
            "attribute stays behind when the module moves with .to() or "
            ".double().",
        )
    if dtype is not None and buffers[name].dtype != dtype:
        raise Miss(f"{what}: `{name}` has dtype {buffers[name].dtype}", f"Expected {dtype}.")
    return buffers[name]
