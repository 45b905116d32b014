"""What a question's check may use: Miss, input helpers, comparisons, and the ban on the package's own answer."""
import functools
import importlib
import inspect
import math
import sys
from dataclasses import dataclass, field

import torch
from torch import nn

LEARNER = "<cell"          # file name prefix of code compiled from the learner's cells
NOTEBOOK_PATH = None       # the notebook being graded (set in each question's process)
GRADING = False            # True inside a question's process: a `q1.check()` in a graded cell does nothing there
CELLS = None               # (setup, {number: source}) when a check runs from a notebook's kernel (practice.py)


class Miss(Exception):
    "A wrong answer: `reason` is one short line, `hint` says more (input, expected vs got), never the solution."
    def __init__(self, reason, hint=""):
        super().__init__(reason)
        self.reason, self.hint = reason, hint


class UsedReference(Exception):
    "Raised when learner code calls the implementation it was asked to write."


@dataclass
class Question:
    number: int
    points: int
    title: str
    check: callable
    forbid: tuple = field(default_factory=tuple)   # dotted names the learner's cell may not use
    timeout: float | None = None                   # seconds this question may take, if more than the grader's limit
    hint: str = ""                                 # a nudge the learner asks for with q.hint(): never the answer


def question(registry, number, points, title, forbid=(), timeout=None, hint=""):
    """Decorator: register `check(ns)` as question `number` worth `points`. `timeout` raises the time
    limit for this one question (a training run); the grader's own limit applies when it is larger.
    `hint` is what `qN.hint()` prints in the notebook."""
    def register(check):
        registry.append(Question(number, points, title, check, tuple(forbid), timeout, hint))
        return check
    return register


def notebook_cells():
    "(setup, {number: source}) of the notebook being graded: the kernel's cells in a notebook, else the saved file."
    if CELLS is not None:
        return CELLS
    from . import notebook
    return notebook.cells(notebook.read(NOTEBOOK_PATH))


# ---------------------------------------------------------------- the learner's names
def need(ns, name, kind=None):
    """The learner's `name`, which must exist (and be a class / callable when `kind` says so).
    A function comes back wrapped: calling it raises Miss when it changes a tensor argument in place."""
    if name not in ns:
        raise Miss(f"`{name}` is not defined", f"Define `{name}` in this question's cell (keep the name).")
    obj = ns[name]
    _not_the_reference(obj)
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
    import copy
    values = (*args, *kwargs.values())
    return ([(t, t.detach().clone()) for t in values if isinstance(t, torch.Tensor)] +
            [(x, copy.deepcopy(x)) for x in values if isinstance(x, (dict, list, set)) and _plain(x)])


def _unchanged(snapshot, what):
    for t, before in snapshot:
        if not isinstance(t, torch.Tensor):
            if t != before:
                raise Miss(f"{what} changed its input in place",
                           f"The {type(t).__name__} passed in was modified (it was {_short_repr(before)}, it is "
                           f"{_short_repr(t)} after the call): work on a copy and leave the caller's data as it is.")
            continue
        if t.shape != before.shape or not torch.equal(t.detach(), before):
            raise Miss(f"{what} changed its input in place",
                       "An input tensor was modified: write x = x + y instead of x += y, "
                       "masked_fill instead of masked_fill_, and so on.")


def _short_repr(x, limit=80):
    text = repr(x)
    return text if len(text) <= limit else text[:limit - 3] + "..."


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


def answer(ns, name):
    "The learner's numeric answer `name` as a float."
    value = ns.get(name)
    if value is None:
        raise Miss("not answered yet", f"Set `{name}` to a number.")
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise Miss(f"`{name}` is a tensor with {value.numel()} elements, not a number")
        value = value.item()
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise Miss(f"`{name}` is not a number", f"`{name}` is a {type(value).__name__}.") from None
    if not math.isfinite(value):
        raise Miss(f"`{name}` is {value}")
    return value


def check_number(ns, name, expected, rel=1e-3, abs_tol=1e-4):
    "The learner's `name` must be close to `expected`; rel=0 asks for an exact integer. The hint never shows `expected`."
    got = answer(ns, name)
    if not math.isclose(got, expected, rel_tol=rel, abs_tol=abs_tol):
        direction = "too large" if got > expected else "too small"
        if rel == 0:
            shown = f"{got:,.0f}" if got == int(got) else f"{got:.6g}"
            raise Miss("wrong value", f"`{name}` = {shown} is {direction} (an exact integer is expected).")
        raise Miss("wrong value", f"`{name}` = {got:.6g} is {direction} (a relative error up to {rel:g} is accepted).")


def check_choice(ns, name, correct, options):
    """Multiple choice: the learner's `name` must be the letter `correct` (one of `options`, e.g. "abcd").
    Upper or lower case and surrounding spaces or brackets are accepted; the hint never names the answer."""
    value = ns.get(name)
    if value is None:
        raise Miss("not answered yet", f"Set `{name}` to one letter out of {', '.join(repr(o) for o in options)}.")
    letter = value.strip().strip("()[]. ").lower() if isinstance(value, str) else None
    if letter not in options:
        raise Miss(f"`{name}` is not one of the options",
                   f"Got {value!r}; answer with one letter out of {', '.join(repr(o) for o in options)}.")
    if letter != correct:
        raise Miss("wrong choice", f"`{name}` = {letter!r} is not the answer; rerun the experiment the question "
                                   "describes and compare the options with what you measure.")


def check_choices(ns, name, correct, options):
    """Several right options: the learner's `name` must be a string or collection of letters naming exactly
    the options in `correct` (e.g. "ac" or ["a", "c"]). The hint says how many were wrong, not which."""
    value = ns.get(name)
    if value is None:
        raise Miss("not answered yet", f"Set `{name}` to the letters of every true statement, e.g. \"ab\".")
    if isinstance(value, str):
        letters = {c for c in value.lower() if c.isalpha()}
    elif isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in value):
        letters = {v.strip().lower() for v in value}
    else:
        raise Miss(f"`{name}` is not a string of letters", f"Got a {type(value).__name__}.")
    unknown = sorted(letters - set(options))
    if unknown:
        raise Miss(f"`{name}` names options that do not exist", f"Unknown: {unknown}; options are {sorted(options)}.")
    wrong = len(letters ^ set(correct))
    if wrong:
        raise Miss("wrong choice", f"{wrong} of the {len(options)} statements are judged wrongly.")


def need_buffer(module, name, what, dtype=None):
    """`module.<name>` must be a buffer (moves with .to(), is not trained), not a parameter or a plain attribute."""
    buffers, params = dict(module.named_buffers()), dict(module.named_parameters())
    if name in params:
        raise Miss(f"{what}: `{name}` is a parameter", "A fixed table is not trained: register it with "
                                                       "self.register_buffer, so the optimizer never sees it.")
    if name not in buffers:
        raise Miss(f"{what}: `{name}` is not a buffer", "Keep the table with self.register_buffer(...): a plain "
                                                        "attribute stays behind when the module moves with .to() or "
                                                        ".double().")
    if dtype is not None and buffers[name].dtype != dtype:
        raise Miss(f"{what}: `{name}` has dtype {buffers[name].dtype}", f"Expected {dtype}.")
    return buffers[name]


# ---------------------------------------------------------------- comparisons
def _preview(t, n=4):
    flat = t.detach().reshape(-1)[:n].tolist()
    return "[" + ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in flat) + (", ...]" if t.numel() > n else "]")


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
        raise Miss(f"{what} has the wrong shape{where}",
                   f"Expected shape {tuple(expected.shape)}, got {tuple(got.shape)}.")
    if expected.dtype == torch.bool and got.dtype != torch.bool:
        raise Miss(f"{what} is not a boolean tensor{where}", f"Got dtype {got.dtype}; masks are torch.bool.")
    if expected.is_floating_point() and got.is_floating_point() and got.dtype != expected.dtype:
        # float64 from a float32 input (a numpy-built buffer, say) passes a comparison after a cast, then
        # fails in the next float32 layer
        raise Miss(f"{what} has dtype {got.dtype}, not {expected.dtype}{where}",
                   "An output keeps its input's floating-point dtype: a table built with numpy is float64 until "
                   "converted (torch.from_numpy(a).float(), or build it with torch).")
    if not expected.is_floating_point() and expected.dtype != torch.bool and got.dtype != expected.dtype:
        # ids must keep their integer dtype: compared after a cast, float ids would pass and then fail in nn.Embedding
        raise Miss(f"{what} has dtype {got.dtype}, not {expected.dtype}{where}",
                   "Token ids and other integer results keep their integer dtype (torch.long): "
                   "build them from integer tensors, e.g. torch.full_like(ids, value) or torch.cat of long tensors.")
    if expected.is_floating_point() and not (got.is_floating_point() or got.is_complex()):
        raise Miss(f"{what} has dtype {got.dtype}, not a floating-point dtype{where}", f"Expected {expected.dtype}.")
    if expected.dtype == torch.bool or not expected.is_floating_point():
        if not torch.equal(got.to(expected.dtype), expected):
            bad = (got.to(expected.dtype) != expected).nonzero()[0].tolist()
            raise Miss(f"{what} has wrong entries{where}",
                       f"{int((got.to(expected.dtype) != expected).sum())} of {expected.numel()} entries differ; "
                       f"the first at index {bad}: expected {expected[tuple(bad)].item()}, got {got[tuple(bad)].item()}.")
        return
    got = got.detach().to(expected.dtype)
    expected = expected.detach()
    if torch.isnan(got).any() and not torch.isnan(expected).any():
        raise Miss(f"{what} contains NaN{where}", f"{int(torch.isnan(got).sum())} NaN entries.")
    if not torch.allclose(got, expected, atol=atol, rtol=rtol):
        err = (got - expected).abs().nan_to_num(float("inf"))
        i = _unravel(int(err.argmax()), err.shape)
        raise Miss(f"{what} has wrong values{where}",
                   f"Largest error {err.max().item():.3g} at index {list(i)}: expected {expected[i].item():.5g}, "
                   f"got {got[i].item():.5g}. Expected starts {_preview(expected)}, got {_preview(got)}.")


def copy_weights(module, reference, what):
    "Load the reference module's weights into the learner's module (same parameter names required)."
    if not isinstance(module, nn.Module):
        raise Miss(f"{what} is not an nn.Module", f"Got a {type(module).__name__}.")
    want, have = reference.state_dict(), module.state_dict()
    missing = [k for k in want if k not in have]
    extra = [k for k in have if k not in want]
    if missing or extra:
        raise Miss(f"{what} has different parameter names than asked",
                   f"Missing: {missing[:6] or 'none'}; unexpected: {extra[:6] or 'none'}.")
    for k, v in want.items():
        if tuple(have[k].shape) != tuple(v.shape):
            raise Miss(f"{what}: `{k}` has the wrong shape",
                       f"Expected {tuple(v.shape)}, got {tuple(have[k].shape)}.")
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


# ---------------------------------------------------------------- the ban
USED = []      # dotted names of banned objects that learner code touched
POISONED = {}  # id of each banned object as learner code sees it -> (its dotted name, the object: kept alive, so the id stays its own)


def _not_the_reference(obj):
    """A learner's name bound to the banned object itself (`from transformer.x import f`, `f = reference`,
    `functools.partial(reference)`) runs no learner code when called, so the call-time ban cannot see it."""
    for _ in range(20):
        if id(obj) in POISONED:
            _banned(POISONED[id(obj)][0])
        obj = obj.func if isinstance(obj, functools.partial) else getattr(obj, "__wrapped__", None)
        if obj is None:
            return


def _from_learner():
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_filename.startswith(LEARNER):
            return True
        f = f.f_back
    return False


def _banned(path):
    USED.append(path)
    raise UsedReference(f"this question asks you to write it yourself: do not use `{path}`")


def _resolve(path):
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ImportError(path)


def _poisoned(obj, path):
    if inspect.isclass(obj) and _subclassable(obj):
        def __init__(self, *args, **kwargs):
            if _from_learner():
                _banned(path)
            obj.__init__(self, *args, **kwargs)

        def __init_subclass__(cls, **kwargs):
            if _from_learner():
                _banned(path)
            super(poisoned, cls).__init_subclass__(**kwargs)
        poisoned = type(obj.__name__, (obj,), {"__init__": __init__, "__module__": obj.__module__,
                                               "__qualname__": obj.__qualname__,
                                               "__init_subclass__": classmethod(__init_subclass__)})
        return poisoned

    def poisoned(*args, **kwargs):      # a function, or a compiled class that takes no subclass (tokenizers')
        if _from_learner():
            _banned(path)
        return obj(*args, **kwargs)
    return poisoned


def _subclassable(cls):
    "False for a compiled class that cannot be subclassed (\"not an acceptable base type\"), e.g. tokenizers'."
    return bool(cls.__flags__ & (1 << 10))          # Py_TPFLAGS_BASETYPE


def forbid(paths):
    "Make each dotted name unusable from learner code (the package itself keeps working)."
    for path in paths:
        owner, name = _resolve(path)
        original = getattr(owner, name)
        poison = _poisoned(original, path)
        POISONED[id(poison)] = (path, poison)
        setattr(owner, name, poison)
        if inspect.ismodule(owner):          # also where it was re-exported, e.g. `transformer.X`, `torch._C._nn.X`
            top = path.split(".")[0]
            for modname, mod in list(sys.modules.items()):
                if mod is not None and (modname == top or modname.startswith(top + ".")):
                    if getattr(mod, "__dict__", {}).get(name) is original:
                        setattr(mod, name, poison)
