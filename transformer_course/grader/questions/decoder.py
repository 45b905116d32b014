"""Exercise 5: the decoder."""

import torch

from transformer.attention import causal_mask, padding_mask
from transformer.decoder import Decoder, DecoderLayer
from transformer.encoder import LayerOptions

from ..checks import Miss, check_choices, check_number, question
from ..learner import need
from ..tensors import copy_weights, rand, randint, same, scramble

NOTEBOOK = "05_decoder"
QUESTIONS = []


def shifted(labels, bos):
    "The expected decoder input, in the labels' own dtype."
    return torch.cat([torch.full_like(labels[:, :1], bos), labels[:, :-1]], dim=1)


@question(QUESTIONS, 1, 2, "shift_right")
def q1(ns):
    f = need(ns, "shift_right", "function")
    labels = torch.tensor([[5, 6, 7, 2, 0], [8, 9, 2, 0, 0]])  # torch.long, as the data pipeline makes them
    case = "labels = [[5, 6, 7, 2, 0], [8, 9, 2, 0, 0]] (torch.long)"
    for bos in (1, 3):
        # `same` refuses an integer result of another dtype: float ids (torch.full(..., dtype=torch.float),
        # torch.zeros(...) + bos) would fail later in nn.Embedding
        same(f(labels, bos), shifted(labels, bos), f"shift_right(labels, bos_id={bos})", case)
    same(
        f(labels[1:], 2),
        shifted(labels[1:], 2),
        "shift_right(labels, 2)",
        "a batch of one sentence, [[8, 9, 2, 0, 0]]",
    )
    same(f(torch.tensor([[4]]), 1), torch.tensor([[1]]), "shift_right(labels, 1)", "labels = [[4]] (length 1)")
    # Other integer dtypes: the package has no shift_right of its own and its data pipeline only makes
    # torch.long ids, so for int32 labels both int32 (the labels' dtype kept) and torch.long (a long <bos>
    # column promotes the concatenation) are ids nn.Embedding accepts; a floating-point result is not.
    small = labels.to(torch.int32)
    got = f(small, 1)
    want = shifted(small, 1)
    if isinstance(got, torch.Tensor) and got.dtype in (torch.int32, torch.long):
        want = want.to(got.dtype)
    same(got, want, "shift_right(labels, 1)", "the same labels as torch.int32")


@question(QUESTIONS, 2, 2, "target_mask")
def q2(ns):
    f = need(ns, "target_mask", "function")
    tgt = torch.tensor([[1, 5, 6, 7, 0, 0], [1, 8, 0, 0, 0, 0], [1, 4, 4, 4, 4, 4]])
    for pad in (0, 4):
        want = padding_mask(tgt, pad) & causal_mask(tgt.size(1))
        same(f(tgt, pad), want, f"target_mask(tgt, pad_id={pad})", "tgt of shape (3, 6) with padding")
    one = torch.tensor([[1, 9, 3]])
    same(
        f(one, 0),
        causal_mask(3),
        "target_mask(tgt, pad_id=0)",
        "tgt = [[1, 9, 3]] (one sentence, no padding)",
    )


@question(
    QUESTIONS,
    3,
    4,
    "DecoderLayer",
    forbid=["transformer.decoder.DecoderLayer", "transformer.decoder.Decoder"],
)
def q3(ns):
    cls = need(ns, "DecoderLayer", "class")
    # The target (5 positions) and the memory (7 positions) have different lengths, so an answer that
    # takes the cross-attention's queries from the memory, or its keys from x, cannot pass by accident;
    # a third case gives them the same length, where such an answer runs but gives other values.
    x, memory = rand(2, 5, 8, seed=1), rand(2, 7, 8, seed=2)
    src = randint(1, 9, (2, 7), seed=3)
    src[1, 4:] = 0  # source padding
    tgt = randint(1, 9, (2, 5), seed=9)
    tgt[0, 3:] = 0  # target padding
    src_mask = padding_mask(src, 0)
    tgt_mask = padding_mask(tgt, 0) & causal_mask(5)
    x6, memory6 = rand(2, 6, 8, seed=10), rand(2, 6, 8, seed=11)
    src6 = randint(1, 9, (2, 6), seed=12)
    src6[0, 2:] = 0
    for pre_norm in (False, True):
        opts = LayerOptions(8, 2, 16, 0.1, pre_norm=pre_norm)
        ref = scramble(DecoderLayer(opts), 4).eval()
        name = f"DecoderLayer(LayerOptions(8, 2, 16, 0.1, pre_norm={pre_norm}))"
        mine = copy_weights(cls(opts), ref, name).eval()
        same(
            mine(x, memory),
            ref(x, memory),
            "the output",
            f"pre_norm={pre_norm}, target length 5, memory length 7, no masks",
        )
        same(
            mine(x, memory, src_mask, tgt_mask),
            ref(x, memory, src_mask, tgt_mask),
            "the output",
            f"pre_norm={pre_norm}, source padding mask, causal and padding target mask",
        )
        same(
            mine(x, memory, src_mask),
            ref(x, memory, src_mask),
            "the output",
            f"pre_norm={pre_norm}, source padding mask only (tgt_mask=None)",
        )
        same(
            mine(x6, memory6, padding_mask(src6, 0), causal_mask(6)),
            ref(x6, memory6, padding_mask(src6, 0), causal_mask(6)),
            "the output",
            f"pre_norm={pre_norm}, target and memory both of length 6, source padding mask, causal mask",
        )
        xx, mm = x.clone().requires_grad_(), memory.clone().requires_grad_()
        mine(xx, mm, src_mask, tgt_mask).pow(2).sum().backward()
        xr, mr = x.clone().requires_grad_(), memory.clone().requires_grad_()
        ref(xr, mr, src_mask, tgt_mask).pow(2).sum().backward()
        same(xx.grad, xr.grad, "the gradient with respect to x", f"pre_norm={pre_norm}")
        same(mm.grad, mr.grad, "the gradient with respect to memory", f"pre_norm={pre_norm}")
        # dropout must reach every sublayer and the feed-forward network: in training mode, with the same
        # random numbers, the output equals the package's for rates other than the default 0.1 (at 0.0 a
        # hard-coded rate shows, at 0.5 a missing or misplaced dropout)
        for p in (0.0, 0.5):
            opts_p = LayerOptions(8, 2, 16, p, pre_norm=pre_norm)
            ref = scramble(DecoderLayer(opts_p), 5).train()
            name = f"DecoderLayer(LayerOptions(8, 2, 16, dropout={p}, pre_norm={pre_norm}))"
            mine = copy_weights(cls(opts_p), ref, name).train()
            torch.manual_seed(0)
            want = ref(x, memory, src_mask, tgt_mask)
            torch.manual_seed(0)
            same(
                mine(x, memory, src_mask, tgt_mask),
                want,
                "the output in training mode",
                f"dropout={p}, pre_norm={pre_norm}, same random seed as the package's layer",
            )


TGT = torch.tensor([[1, 5, 6, 7, 0, 0], [1, 8, 0, 0, 0, 0], [1, 4, 4, 4, 4, 4]])


@question(QUESTIONS, 4, 2, "allowed pairs in a padded target mask")
def q4(ns):
    check_number(ns, "answer_q4", (padding_mask(TGT, 0) & causal_mask(TGT.size(1))).sum().item(), rel=0)


def agreeing_positions(n_layers, seed=0):
    "Positions where a parallel pass without causal mask equals the prefix-by-prefix loop with it."
    torch.manual_seed(seed)
    decoder = Decoder(LayerOptions(d_model=16, h=4, d_ff=64, dropout=0.0), n_layers).eval()
    x, memory = torch.randn(1, 6, 16), torch.randn(1, 7, 16)
    with torch.no_grad():
        parallel = decoder(x, memory)
        loop = torch.stack([decoder(x[:, : t + 1], memory, None, causal_mask(t + 1))[:, -1] for t in range(6)], dim=1)
    # agreeing positions differ by float rounding (~1e-7), the others by about 0.05 or more: 1e-5 separates them
    return sum(torch.allclose(parallel[:, t], loop[:, t], atol=1e-5) for t in range(6))


@question(QUESTIONS, 5, 2, "without the causal mask")
def q5(ns):
    check_number(ns, "answer_q5", agreeing_positions(2), rel=0)


@question(QUESTIONS, 6, 2, "what padded positions do")
def q6(ns):
    check_choices(ns, "answer_q6", correct="ace", options="abcde")


@question(QUESTIONS, 7, 2, "the masks of a decoder layer")
def q7(ns):
    f = need(ns, "decoder_masks", "function")
    cases = []
    src = randint(4, 9, (3, 6), seed=15)  # first the colleague's situation: equal lengths, where the bug runs
    src[0, 2:] = 3
    tgt = randint(4, 9, (3, 6), seed=16)
    tgt[2, 4:] = 3
    cases.append((src, tgt, 3, "source and target both (3, 6), padded with 3"))
    src = randint(4, 9, (2, 7), seed=13)
    src[1, 5:] = 0
    tgt = randint(4, 9, (2, 5), seed=14)
    tgt[0, 3:] = 0
    cases.append((src, tgt, 0, "source (2, 7) and target (2, 5), both padded with 0"))
    cases.append(
        (
            torch.tensor([[5, 6, 7, 0]]),
            torch.tensor([[1, 8, 0]]),
            0,
            "one sentence pair, source (1, 4), target (1, 3)",
        )
    )
    for src, tgt, pad, case in cases:
        b, len_s, len_t = src.size(0), src.size(1), tgt.size(1)
        got = f(src, tgt, pad)
        if not (isinstance(got, tuple) and len(got) == 2):
            raise Miss(
                "`decoder_masks` does not return two masks",
                f"Return (src_mask, tgt_mask); got a {type(got).__name__}.",
            )
        # the masks only have to broadcast to the attention scores: compare them at the scores' shape
        for got_mask, want, shape, what in (
            (got[0], padding_mask(src, pad), (b, 1, len_t, len_s), "src_mask"),
            (got[1], padding_mask(tgt, pad) & causal_mask(len_t), (b, 1, len_t, len_t), "tgt_mask"),
        ):
            if not isinstance(got_mask, torch.Tensor):
                raise Miss(f"{what} is not a tensor ({case})", f"Got a {type(got_mask).__name__}.")
            try:
                fits = torch.broadcast_shapes(got_mask.shape, shape) == shape
            except RuntimeError:
                fits = False
            if not fits:
                raise Miss(
                    f"{what} does not fit the attention scores ({case})",
                    f"It has shape {tuple(got_mask.shape)}; the scores it masks have shape "
                    f"(batch, h, len_q, len_k) = ({b}, h, {shape[2]}, {shape[3]}).",
                )
            same(got_mask.expand(shape), want.expand(shape), what, case + f", compared at shape {shape}")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Keep labels' dtype: torch.full_like(labels[:, :1], bos_id) concatenated with labels[:, :-1] along dimension 1."
    ),
    2: (
        "In this course True means 'may attend'; nn.Transformer's boolean masks use True for 'blocked'. Which "
        "part of the colleague's mask is upside down?"
    ),
    3: (
        "Three sublayers: self-attention on x with tgt_mask, cross-attention with queries from x and keys and "
        "values from memory with src_mask, then the FFN."
    ),
    4: (
        "Build the mask with the package's padding_mask and causal_mask and sum it; before that, count row by "
        "row: a padded query still sees the real keys before it."
    ),
    5: (
        "Run the chapter's prefix loop and the unmasked parallel pass; compare position by position with "
        "torch.allclose(atol=1e-5). Which position sees the same keys in both?"
    ),
    6: (
        "Build the mask for [1, 5, 6, 7, 0, 0] and look at rows 4 and 5; test (c) by changing the inputs at "
        "positions 4 and 5 and comparing outputs 0 to 3."
    ),
    7: (
        "The causal mask has shape (len_t, len_t), but the cross-attention scores are (len_t, len_s): the "
        "source mask should only hide padded source tokens."
    ),
}
