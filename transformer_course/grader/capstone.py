"""The capstone: your own Transformer, built from your answers to exercises 1 to 5, learns chapter 7's toy task.

`load_pieces(folder)` runs the setup cell and one question cell of each exercise notebook in `folder` and
wires the answers together: your multi-head attention calls your attention, your encoder layer builds your
multi-head attention, feed-forward network and residual connections, and so on. `train_and_score` trains a
model on the reversal task with the package's training loop and decodes it with the package's greedy
decoder; `compare` does it for your model and the package's `Transformer` (computed once: `run_cache.py`),
same budget and seed; `culprit` swaps in the package's pieces one at a time, naming the first that helps."""

import contextlib
import io
import platform
from dataclasses import dataclass
from pathlib import Path

import torch

from transformer.checkpoint import sha256_bytes
from transformer.training import BOS, EOS, PAD, UNK  # noqa: F401 (the course's special ids)

from . import notebook
from .checks import LEARNER
from .run_cache import cached


@dataclass(frozen=True)
class Piece:
    name: str  # what the piece is, in words
    exercise: str  # the notebook's NN_ prefix
    question: int
    defines: str  # the name the question's cell defines
    package: str  # the package's own version, as a dotted name

    @property
    def where(self):
        return f"exercise {int(self.exercise)}, question {self.question} (`{self.defines}`)"


# Inner pieces first: when several are wrong, the first swap that helps names the innermost culprit.
PIECES = [
    Piece(
        "attention",
        "01",
        3,
        "scaled_dot_product_attention",
        "transformer.attention.scaled_dot_product_attention",
    ),
    Piece("multi-head attention", "02", 3, "MultiHeadAttention", "transformer.multi_head.MultiHeadAttention"),
    Piece("sinusoidal encoding", "03", 1, "sinusoidal_encoding", "transformer.embeddings.sinusoidal_encoding"),
    Piece("embeddings", "03", 2, "Embeddings", "transformer.embeddings.Embeddings"),
    Piece("positional encoding", "03", 3, "PositionalEncoding", "transformer.embeddings.PositionalEncoding"),
    Piece("feed-forward network", "04", 1, "FeedForward", "transformer.encoder.FeedForward"),
    Piece(
        "residual connection and LayerNorm",
        "04",
        2,
        "SublayerConnection",
        "transformer.encoder.SublayerConnection",
    ),
    Piece("encoder layer", "04", 3, "EncoderLayer", "transformer.encoder.EncoderLayer"),
    Piece("decoder layer", "05", 3, "DecoderLayer", "transformer.decoder.DecoderLayer"),
]

# In the namespace of a piece's cell: the name the cell imports from the package -> the piece it stands for.
WIRING = {
    "MultiHeadAttention": {"scaled_dot_product_attention": "scaled_dot_product_attention"},
    "PositionalEncoding": {"package_sinusoidal_encoding": "sinusoidal_encoding"},
    "EncoderLayer": {
        "MultiHeadAttention": "MultiHeadAttention",
        "PackageFeedForward": "FeedForward",
        "PackageSublayerConnection": "SublayerConnection",
    },
    "DecoderLayer": {
        "MultiHeadAttention": "MultiHeadAttention",
        "FeedForward": "FeedForward",
        "SublayerConnection": "SublayerConnection",
    },
}


class NotAnswered(Exception):
    "A piece's question cell is missing or still raises NotImplementedError."

    def __init__(self, piece, why):
        super().__init__(f"{piece.where} {why}")
        self.piece = piece


def _package(piece):
    module, name = piece.package.rsplit(".", 1)
    return getattr(__import__(module, fromlist=[name]), name)


def package_pieces():
    "Every piece from the package: what a correct set of answers behaves like."
    return {p.defines: _package(p) for p in PIECES}


STUB = "# YOUR CODE HERE\n"  # what `python -m transformer_course.grader build` leaves where the answer goes


def _run_cell(path, number):
    """The namespace after running the notebook's setup cell and question `number`'s cell. A cell that still
    holds the exercise's stub raises NotImplementedError at once (a class's stub would only raise when built)."""
    setup, sources = notebook.cells(notebook.read(path))
    if number not in sources:
        raise KeyError(number)
    if STUB in sources[number]:
        raise NotImplementedError
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(setup, f"{LEARNER} {Path(path).name} setup>", "exec"), ns)
        exec(compile(sources[number], f"{LEARNER} {Path(path).name} question {number}>", "exec"), ns)
    return ns


def load_pieces(folder, use_package=()):
    """{name: object} of your pieces, read from the exercise notebooks in `folder` and wired to each other.
    Pieces named in `use_package` (by `Piece.defines`) come from the package instead. Raises NotAnswered
    when a piece's notebook or cell is missing or its cell raises."""
    folder, pieces, spaces = Path(folder), {}, {}
    for piece in PIECES:
        if piece.defines in use_package:
            pieces[piece.defines] = _package(piece)
            continue
        found = sorted(folder.glob(f"{piece.exercise}_*.ipynb"))
        if not found:
            raise NotAnswered(piece, f"has no notebook in {folder}")
        try:
            ns = _run_cell(found[0], piece.question)
        except KeyError:
            raise NotAnswered(piece, "has no cell") from None
        except NotImplementedError:
            raise NotAnswered(piece, "is not answered yet") from None
        except Exception as e:
            raise NotAnswered(piece, f"raises {type(e).__name__}: {str(e)[:80]}") from None
        if piece.defines not in ns:
            raise NotAnswered(piece, f"does not define `{piece.defines}`")
        pieces[piece.defines], spaces[piece.defines] = ns[piece.defines], ns
    for name, ns in spaces.items():  # your pieces call your other pieces
        for imported, piece_name in WIRING.get(name, {}).items():
            ns[imported] = pieces[piece_name]
    return pieces


# ---------------------------------------------------------------- the task and the budget
# chapter 7's toy run: its reversal task (10 symbols, 2 to 8 of them), its model and its budget, which
# learn the task at every seed (results/toy/seeds.json)
TASK = dict(vocab=14, max_len=8)


def data():
    "(training pairs, held-out test pairs): chapter 7's split; no test source occurs in training."
    from transformer.training import toy_splits

    train, _, test = toy_splits(vocab_size=TASK["vocab"], max_len=TASK["max_len"])
    return train, test


def config():
    from transformer.model import TransformerConfig
    from transformer.training import TOY_MODEL

    return TransformerConfig(src_vocab=TASK["vocab"], tgt_vocab=TASK["vocab"], pad_id=PAD, **TOY_MODEL)


def initial_weights(seed=0):
    "The package's Transformer as its constructor initializes it with `seed`: the weights both models start from."
    from transformer.model import Transformer

    torch.manual_seed(seed)
    return Transformer(config()).state_dict()


class NamesDiffer(ValueError):
    "The learner's model does not have the package's parameter names and shapes."


def start_from(model, weights):
    """Load the package's weights into `model`, whose layers are named encoder_layers.i / decoder_layers.i
    where the package's are encoder.layers.i / decoder.layers.i. Raises NamesDiffer with what is missing."""
    yours = lambda k: k.replace("encoder.layers.", "encoder_layers.").replace("decoder.layers.", "decoder_layers.")
    mapped = {yours(k): v for k, v in weights.items()}
    have = {yours(k): v for k, v in model.state_dict().items()}  # the package's own model: the same names
    missing, extra = sorted(set(mapped) - set(have)), sorted(set(have) - set(mapped))
    if missing or extra:
        raise NamesDiffer(f"missing: {missing[:4] or 'none'}; unexpected: {extra[:4] or 'none'}")
    for k, v in mapped.items():
        if have[k].shape != v.shape:
            raise NamesDiffer(f"`{k}` has shape {tuple(have[k].shape)}, the package's {tuple(v.shape)}")
    model.load_state_dict({k: mapped[yours(k)] for k in model.state_dict()})


def train_and_score(make_model, seed=0, steps=None):
    """Build `make_model(cfg)`, start it from the package's initial weights for `seed`, train it on the
    reversal task and return its exact-match accuracy on held-out sequences (greedy decoding with the
    package's decoder, without a cache). Both models of `compare` thus start from the same weights and see
    the same batches and the same dropout seed: a correct model follows the package's run closely."""
    from transformer.generation import greedy_search
    from transformer.loop import train
    from transformer.presets import TrainConfig
    from transformer.training import TOY_TRAIN, make_batch

    cfg = config()
    model = make_model(cfg)
    start_from(model, initial_weights(seed))
    train_pairs, test_pairs = data()
    budget = {**TOY_TRAIN, **({"max_steps": steps} if steps else {})}
    run = TrainConfig(
        max_epochs=1000,
        eval_every=None,
        log_every=50,
        seed=seed,
        device="cpu",
        precision="fp32",
        progress=False,
        **budget,
    )
    train(model, train_pairs, test_pairs[:50], run, PAD, BOS, EOS)
    src = make_batch(test_pairs, PAD, BOS, EOS).src
    outputs = greedy_search(model, src, BOS, EOS, TASK["max_len"] + 1, use_cache=False)
    return sum(o == t for o, (_, t) in zip(outputs, test_pairs)) / len(test_pairs)


# ---------------------------------------------------------------- the package's run, computed once
def reference_key(seed, steps=None) -> dict:
    """Everything that decides the package's run for `seed`, the bar a learner's model must reach: the package's
    code, this module, the seed, and the PyTorch build, threads and kind of CPU (rounding). `cached` keeps the
    run's accuracy under a digest of all of these; any change to one of them computes it afresh."""
    import transformer

    modules = sorted(p for p in Path(transformer.__file__).parent.glob("*.py") if p.name != "_modidx.py")
    return {
        **{"run": "package_accuracy", "seed": seed, "steps": steps, "torch": torch.__version__},
        **{"threads": torch.get_num_threads(), "cpu": torch.backends.cpu.get_cpu_capability()},
        **{"machine": platform.machine(), "python": platform.python_version()},
        "package": {p.name: sha256_bytes(p.read_bytes()) for p in modules},  # _modidx: nbdev's index, never imported
        "capstone": sha256_bytes(Path(__file__).read_bytes()),
    }


def package_accuracy(seed=0):
    """What the package's own Transformer reaches with the same task, size, budget, seed and initial weights:
    computed once, then read from the cache (`cached`) while nothing that decides it changes."""
    from transformer.model import Transformer

    return cached(reference_key(seed), lambda: train_and_score(Transformer, seed))


def your_accuracy(model_class, pieces, seed=0):
    return train_and_score(lambda cfg: model_class(cfg, pieces), seed)


# With the same initial weights, batches and dropout seed, a correct model differs from the package's only
# by float rounding (another order of the same sums) and, if its layers call dropout in another order, by
# its dropout masks. tools/runs/capstone_seeds.py measures how far seeds move the result; TOLERANCE is the
# margin a correct model gets below the package's accuracy.
TOLERANCE = 0.10


def culprit(model_class, folder, target):
    """The first of your pieces whose package version, swapped in alone, lets your model reach `target`:
    (piece, accuracy with the swap), or (None, None) when no single swap is enough."""
    for piece in PIECES:
        pieces = load_pieces(folder, use_package={piece.defines})
        accuracy = your_accuracy(model_class, pieces)
        if accuracy >= target:
            return piece, accuracy
    return None, None


def verdict(model_class, folder, diagnose=True):
    """(your accuracy, the package's, advice): advice is None when yours comes within TOLERANCE of the
    package's, else a sentence naming the first piece whose swap fixes it (found by `culprit`)."""
    yours, package = your_accuracy(model_class, load_pieces(folder)), package_accuracy()
    if yours >= package - TOLERANCE:
        return yours, package, None
    if not diagnose:
        return yours, package, "Your model falls short of the package's."
    piece, fixed = culprit(model_class, folder, package - TOLERANCE)
    if piece is None:
        return yours, package, "No single piece swapped for the package's fixes it: more than one is wrong."
    return (
        yours,
        package,
        (f"With the package's {piece.name} instead of yours it reaches {fixed:.2f}: look at {piece.where}."),
    )


def compare(model_class, folder=".", diagnose=True):
    "Train your model and the package's in the same budget and print both accuracies (and the culprit if yours falls short)."
    from transformer.training import TOY_TRAIN

    yours, package, advice = verdict(model_class, folder, diagnose)
    print(
        f"exact-match accuracy on {len(data()[1])} held-out sequences after {TOY_TRAIN['max_steps']} updates: "
        f"yours {yours:.3f}, the package's {package:.3f}"
    )
    print(advice or "Your Transformer learns as well as the package's.")
    return yours, package
