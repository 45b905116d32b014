"""Exercise 5: the decoder."""
import torch

from transformer.attention import causal_mask, padding_mask
from transformer.decoder import DecoderLayer
from ..checks import check_number, copy_weights, need, question, rand, randint, same
from .encoder import scramble

NOTEBOOK = "05_decoder"
QUESTIONS = []


@question(QUESTIONS, 1, 2, "shift_right")
def q1(ns):
    f = need(ns, "shift_right", "function")
    labels = torch.tensor([[5, 6, 7, 2, 0], [8, 9, 2, 0, 0]])
    for bos in (1, 3):
        want = torch.cat([torch.full((2, 1), bos), labels[:, :-1]], dim=1)
        same(f(labels, bos), want, f"shift_right(labels, bos_id={bos})", "labels = [[5, 6, 7, 2, 0], [8, 9, 2, 0, 0]]")
    one = torch.tensor([[4]])
    same(f(one, 1), torch.tensor([[1]]), "shift_right(labels, 1)", "labels = [[4]] (length 1)")


@question(QUESTIONS, 2, 2, "target_mask")
def q2(ns):
    f = need(ns, "target_mask", "function")
    tgt = torch.tensor([[1, 5, 6, 7, 0, 0], [1, 8, 0, 0, 0, 0], [1, 4, 4, 4, 4, 4]])
    for pad in (0, 4):
        want = padding_mask(tgt, pad) & causal_mask(tgt.size(1))
        same(f(tgt, pad), want, f"target_mask(tgt, pad_id={pad})", "tgt of shape (3, 6) with padding")


@question(QUESTIONS, 3, 4, "DecoderLayer", forbid=["transformer.decoder.DecoderLayer", "transformer.decoder.Decoder"])
def q3(ns):
    cls = need(ns, "DecoderLayer", "class")
    x, memory = rand(2, 5, 8, seed=1), rand(2, 7, 8, seed=2)
    src = randint(1, 9, (2, 7), seed=3)
    src[1, 4:] = 0
    src_mask, tgt_mask = padding_mask(src, 0), causal_mask(5)
    for pre_norm in (False, True):
        ref = scramble(DecoderLayer(8, 2, 16, 0.1, pre_norm=pre_norm), 4).eval()
        mine = copy_weights(cls(8, 2, 16, 0.1, pre_norm=pre_norm), ref,
                            f"DecoderLayer(8, 2, 16, 0.1, pre_norm={pre_norm})").eval()
        same(mine(x, memory), ref(x, memory), "the output", f"pre_norm={pre_norm}, no masks")
        same(mine(x, memory, src_mask, tgt_mask), ref(x, memory, src_mask, tgt_mask), "the output",
             f"pre_norm={pre_norm}, source padding mask and causal target mask")
    xx, mm = x.clone().requires_grad_(), memory.clone().requires_grad_()
    mine(xx, mm, src_mask, tgt_mask).pow(2).sum().backward()
    xr, mr = x.clone().requires_grad_(), memory.clone().requires_grad_()
    ref(xr, mr, src_mask, tgt_mask).pow(2).sum().backward()
    same(xx.grad, xr.grad, "the gradient with respect to x")
    same(mm.grad, mr.grad, "the gradient with respect to memory")


@question(QUESTIONS, 4, 1, "parameters of one base decoder layer")
def q4(ns):
    check_number(ns, "answer_q4", sum(p.numel() for p in DecoderLayer(512, 8, 2048).parameters()), rel=0)


@question(QUESTIONS, 5, 1, "allowed pairs in a causal mask")
def q5(ns):
    check_number(ns, "answer_q5", causal_mask(10).sum().item(), rel=0)
