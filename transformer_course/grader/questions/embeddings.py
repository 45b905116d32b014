"""Exercise 3: embeddings and positional encoding."""

import math

import torch

from transformer.embeddings import Embeddings, PositionalEncoding, sinusoidal_encoding

from ..checks import Miss, check_choices, check_number, question
from ..learner import guard, need, need_buffer
from ..tensors import copy_weights, rand, randint, same

NOTEBOOK = "03_embeddings"
QUESTIONS = []


@question(
    QUESTIONS,
    1,
    2,
    "sinusoidal_encoding",
    forbid=["transformer.embeddings.sinusoidal_encoding", "transformer.embeddings.PositionalEncoding"],
)
def q1(ns):
    f = need(ns, "sinusoidal_encoding", "function")
    for max_len, d_model in ((1, 4), (7, 2), (6, 8), (50, 16), (100, 512)):
        same(
            f(max_len, d_model),
            sinusoidal_encoding(max_len, d_model),
            f"sinusoidal_encoding({max_len}, {d_model})",
            atol=1e-4,
            rtol=1e-4,
        )


@question(QUESTIONS, 2, 1, "Embeddings", forbid=["transformer.embeddings.Embeddings"])
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


def dropout_effect(cls, p):
    """PositionalEncoding(32, p) in training mode: about a fraction p of the entries of x + PE zeroed, the rest
    scaled by 1/(1-p); in eval mode exactly x + PE. x lies in [2.5, 3.5] and PE in [-1, 1], so x + PE is never 0
    and a zero in the output is a dropped entry."""
    what = f"PositionalEncoding(32, dropout={p}, max_len=60)"
    x = 3 + 0.5 * rand(8, 50, 32, seed=11).clamp(-1, 1)
    want = x + sinusoidal_encoding(60, 32)[5:55]
    mine = guard(cls(32, p, max_len=60), what)
    torch.manual_seed(0)
    out = mine.train()(x, start=5)
    if not isinstance(out, torch.Tensor) or out.shape != want.shape:
        same(out, want, "the output", f"{what}, training mode, start=5")
    dropped = out == 0
    share = dropped.float().mean().item()
    # 12,800 entries: the share of dropped ones has a standard deviation of at most 0.0045 around p,
    # so 0.03 (more than 6 standard deviations) is never exceeded by a dropout at rate p.
    if abs(share - p) > 0.03:
        raise Miss(
            f"in training mode the share of zeroed entries is not the dropout rate ({what})",
            f"{share:.2f} of the output's entries are zero, expected about {p} (x + PE is never 0 here): "
            "dropout at the rate given by the `dropout` argument, applied to the sum x + PE.",
        )
    scale = 1 / (1 - p)
    same(
        out[~dropped],
        want[~dropped] * scale,
        "the entries kept by dropout in training mode",
        f"{what}: kept entries are (x + PE) / (1 - {p}), dropout comes after the sum",
    )
    same(mine.eval()(x, start=5), want, "the output in eval mode", f"{what}: dropout does nothing in eval mode")


@question(QUESTIONS, 3, 3, "PositionalEncoding", forbid=["transformer.embeddings.PositionalEncoding"])
def q3(ns):
    cls = need(ns, "PositionalEncoding", "class")
    x = rand(2, 6, 16, seed=1)
    ref = PositionalEncoding(16, 0.0, max_len=50).eval()
    mine = guard(cls(16, 0.1, max_len=50).eval(), "PositionalEncoding(16, 0.1, max_len=50)")
    same(mine(x), ref(x), "the output", "eval mode, start=0")
    same(mine(x, start=3), ref(x, start=3), "the output", "eval mode, start=3 (positions 3..8)")
    # one token at a time, as in decoding: length 1 at odd, even and the last position of the table
    one = rand(3, 1, 16, seed=2)
    for start in (0, 1, 7, 49):
        same(
            mine(one, start=start),
            ref(one, start=start),
            "the output",
            f"eval mode, a sequence of length 1 at start={start}",
        )
    same(
        mine(x[:, :5], start=45),
        ref(x[:, :5], start=45),
        "the output",
        "eval mode, length 5 at start=45 (the last rows)",
    )
    # the table: a buffer, no parameter, and it follows .double()
    what = "PositionalEncoding(16, 0.1, max_len=50)"
    need_buffer(mine, "pe", what)
    params = [name for name, _ in mine.named_parameters()]
    if params:
        raise Miss(
            f"{what} has parameters",
            f"Parameters {params[:4]}: the encoding is fixed, nothing in it is trained.",
        )
    mine.double()
    need_buffer(mine, "pe", f"{what} after .double()", dtype=torch.float64)
    out = mine(x.double(), start=3)
    if not isinstance(out, torch.Tensor) or out.dtype != torch.float64:
        raise Miss(
            f"{what} after .double() does not return float64",
            f"Got {getattr(out, 'dtype', type(out).__name__)} for a float64 input.",
        )
    same(out, ref.double()(x.double(), start=3), "the output after .double()", "eval mode, start=3, float64")
    # the dropout rate is the argument's, in training mode; nothing is dropped in eval mode
    for p in (0.0, 0.3, 0.7):
        dropout_effect(cls, p)


@question(QUESTIONS, 4, 2, "RMS of the encoding after dropout")
def q4(ns):
    # The package's PositionalEncoding(512, 0.1) in training mode on zeros: the output is Dropout(PE).
    # 2,048,000 entries: the sample mean of the squares is within about 0.1% of its expectation
    # 0.5 / (1 - 0.1), so a prediction from the formula and this measurement agree to far better than 1%.
    torch.manual_seed(0)
    with torch.no_grad():
        out = PositionalEncoding(512, 0.1).train()(torch.zeros(4, 1000, 512))
    check_number(ns, "answer_q4", out.pow(2).mean().sqrt().item(), rel=0.01)


@question(QUESTIONS, 5, 2, "dimensions slower than a 50-token sentence")
def q5(ns):
    # The angular frequency of each pair, read off the package's table: PE[1] = (sin w_i, cos w_i), w_i <= 1.
    pe = sinusoidal_encoding(2, 512)
    omega = torch.atan2(pe[1, 0::2], pe[1, 1::2]).double()
    wavelength = 2 * math.pi / omega
    check_number(ns, "answer_q5", 2 * int((wavelength > 50).sum()), rel=0)


@question(
    QUESTIONS,
    6,
    3,
    "find the bug in positional_table",
    forbid=["transformer.embeddings.sinusoidal_encoding", "transformer.embeddings.PositionalEncoding"],
)
def q6(ns):
    f = need(ns, "positional_table", "function")
    # the bug shows in the odd (cosine) dimensions, most at small d_model and in the first pairs
    for max_len, d_model in ((1, 2), (6, 8), (50, 16), (100, 64)):
        same(
            f(max_len, d_model),
            sinusoidal_encoding(max_len, d_model),
            f"positional_table({max_len}, {d_model})",
            atol=1e-4,
            rtol=1e-4,
        )


@question(QUESTIONS, 7, 2, "which properties survive the bug")
def q7(ns):
    # Measured on the colleague's table at d_model = 512 over positions 0..999: entries in [-1, 1] (a);
    # lengths from 15.69 to 16.32 instead of 16 (b); smallest distance between two positions 3.0 (c);
    # the least-squares offset map for k = 1, 3, 10 misses by 1.4 to 1.9 (d); PE_pos . PE_pos+k varies
    # by about 19 over the positions for each of k = 1, 3, 10 (e). Only (a) and (c) hold.
    check_choices(ns, "answer_q7", correct="ac", options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Build the positions (max_len, 1) and the frequencies of the pairs, 10000 ** (-2i / d_model) for i = "
        "0 .. d_model/2 - 1; fill the even columns with sin and the odd ones with cos of the same angles."
    ),
    2: "nn.Embedding(vocab, d_model) named lut; forward returns self.lut(ids) * math.sqrt(self.d_model).",
    3: (
        "Keep the table with self.register_buffer('pe', ...), slice rows start:start + x.size(1), add, then "
        "apply nn.Dropout(dropout)."
    ),
    4: (
        "Each sin^2 + cos^2 pair averages to 1/2, so PE has RMS sqrt(1/2). Dropout keeps a share 1 - p of the "
        "entries, each scaled by 1/(1 - p): what does that do to the mean square?"
    ),
    5: (
        "Pair i has wavelength 2 pi / omega_i. Count the pairs whose wavelength is above 50 and remember that "
        "each pair is two dimensions; check on the table."
    ),
    6: (
        "Compare the angle of column 2i + 1 with the formula: both columns of a pair must use the exponent 2i "
        "/ d_model of the pair, not the column's own index."
    ),
    7: (
        "Build the colleague's table for 1000 positions and 512 dimensions and run each of the chapter's "
        "checks on it: norms, pairwise distances (torch.cdist), lstsq fits for k = 1, 3, 10, and dot products "
        "at fixed offsets."
    ),
}
