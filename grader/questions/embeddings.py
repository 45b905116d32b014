"""Exercise 3: embeddings and positional encoding."""
import torch

from transformer.embeddings import Embeddings, PositionalEncoding, sinusoidal_encoding
from ..checks import Miss, check_number, copy_weights, guard, need, question, rand, randint, same

NOTEBOOK = "03_embeddings"
QUESTIONS = []


@question(QUESTIONS, 1, 3, "sinusoidal_encoding",
          forbid=["transformer.embeddings.sinusoidal_encoding", "transformer.embeddings.PositionalEncoding"])
def q1(ns):
    f = need(ns, "sinusoidal_encoding", "function")
    for max_len, d_model in ((1, 4), (6, 8), (50, 16), (100, 512)):
        same(f(max_len, d_model), sinusoidal_encoding(max_len, d_model), f"sinusoidal_encoding({max_len}, {d_model})",
             atol=1e-4, rtol=1e-4)


@question(QUESTIONS, 2, 2, "Embeddings", forbid=["transformer.embeddings.Embeddings"])
def q2(ns):
    cls = need(ns, "Embeddings", "class")
    torch.manual_seed(0)
    ref = Embeddings(11, 16)
    mine = copy_weights(cls(11, 16), ref, "Embeddings(11, 16)")
    ids = randint(0, 11, (3, 7), seed=1)
    out = mine(ids)
    same(out, ref(ids), "the output", "vocab=11, d_model=16, ids of shape (3, 7)")
    out.sum().backward()
    ref(ids).sum().backward()
    same(mine.lut.weight.grad, ref.lut.weight.grad, "the gradient of `lut.weight`")


@question(QUESTIONS, 3, 2, "PositionalEncoding", forbid=["transformer.embeddings.PositionalEncoding"])
def q3(ns):
    cls = need(ns, "PositionalEncoding", "class")
    x = rand(2, 6, 16, seed=1)
    ref = PositionalEncoding(16, 0.0, max_len=50).eval()
    mine = guard(cls(16, 0.1, max_len=50).eval(), "PositionalEncoding(16, 0.1, max_len=50)")
    same(mine(x), ref(x), "the output", "eval mode, start=0")
    same(mine(x, start=3), ref(x, start=3), "the output", "eval mode, start=3 (positions 3..8)")
    mine = guard(cls(16, 0.5, max_len=50).train(), "PositionalEncoding(16, 0.5, max_len=50)")
    torch.manual_seed(0)
    out = mine(x)
    zero = out == 0
    if not zero.any() or zero.all():
        raise Miss("no dropout in training mode", "With dropout=0.5 about half the entries should be zero.")
    same(out[~zero], 2 * ref(x)[~zero], "the kept entries in training mode",
         "dropout=0.5: kept entries are (x + PE) / (1 - 0.5); dropout comes after the sum")


@question(QUESTIONS, 4, 1, "a value of the positional encoding")
def q4(ns):
    check_number(ns, "answer_q4", sinusoidal_encoding(4, 16)[3, 5].item())


@question(QUESTIONS, 5, 1, "dot product of two positional encodings")
def q5(ns):
    pe = sinusoidal_encoding(14, 64)
    check_number(ns, "answer_q5", (pe[10] @ pe[13]).item())
