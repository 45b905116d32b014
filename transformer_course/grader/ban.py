"""The ban on the package's own answer: what a question's `forbid` names cannot be called from learner code.

`forbid(paths)` replaces each dotted name, and every module that re-exports it, by a stand-in that raises
UsedReference when the call comes from code compiled from the learner's cells (file names starting with
`checks.LEARNER`); the package itself and the checks keep using the names freely."""

import functools
import importlib
import inspect
import sys

from .checks import LEARNER


class UsedReference(Exception):
    "Raised when learner code calls the implementation it was asked to write."


USED = []  # dotted names of banned objects that learner code touched
POISONED = {}  # id of each banned object as learner code sees it -> (its dotted name, the object: kept alive, so the id stays its own)


def not_the_reference(obj):
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

        poisoned = type(
            obj.__name__,
            (obj,),
            {
                "__init__": __init__,
                "__module__": obj.__module__,
                "__qualname__": obj.__qualname__,
                "__init_subclass__": classmethod(__init_subclass__),
            },
        )
        return poisoned

    def poisoned(*args, **kwargs):  # a function, or a compiled class that takes no subclass (tokenizers')
        if _from_learner():
            _banned(path)
        return obj(*args, **kwargs)

    return poisoned


def _subclassable(cls):
    'False for a compiled class that cannot be subclassed ("not an acceptable base type"), e.g. tokenizers\'.'
    return bool(cls.__flags__ & (1 << 10))  # Py_TPFLAGS_BASETYPE


def forbid(paths):
    "Make each dotted name unusable from learner code (the package itself keeps working)."
    for path in paths:
        owner, name = _resolve(path)
        original = getattr(owner, name)
        poison = _poisoned(original, path)
        POISONED[id(poison)] = (path, poison)
        setattr(owner, name, poison)
        if inspect.ismodule(owner):  # also where it was re-exported, e.g. `transformer.X`, `torch._C._nn.X`
            top = path.split(".")[0]
            for modname, mod in list(sys.modules.items()):
                if mod is not None and (modname == top or modname.startswith(top + ".")):
                    if getattr(mod, "__dict__", {}).get(name) is original:
                        setattr(mod, name, poison)
