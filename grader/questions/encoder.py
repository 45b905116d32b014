"""Exercise 4: the encoder."""
import torch
from torch import nn

from transformer.attention import padding_mask
from transformer.encoder import Encoder, EncoderLayer, FeedForward, SublayerConnection
from ..checks import Miss, check_number, copy_weights, guard, need, question, rand, randint, same

NOTEBOOK = "04_encoder"
QUESTIONS = []


def scramble(module, seed):
    "Random weights everywhere, LayerNorm included, so that a missing piece shows."
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    return module


@question(QUESTIONS, 1, 2, "FeedForward", forbid=["transformer.encoder.FeedForward"])
def q1(ns):
    cls = need(ns, "FeedForward", "class")
    ref = scramble(FeedForward(8, 32, 0.1), 1).eval()
    mine = copy_weights(cls(8, 32, 0.1), ref, "FeedForward(8, 32, 0.1)").eval()
    x = rand(2, 5, 8, seed=2)
    same(mine(x), ref(x), "the output", "d_model=8, d_ff=32, eval mode")
    mine(x).pow(2).sum().backward()
    ref(x).pow(2).sum().backward()
    for name, p in ref.named_parameters():
        same(dict(mine.named_parameters())[name].grad, p.grad, f"the gradient of `{name}`")
    # Dropout belongs on the hidden activations. With W_1 = 0 and b_1 = 1 they are all ones whatever
    # x is: dropout there must change the output in training mode, dropout on x would not.
    mine = copy_weights(cls(8, 32, 0.5), ref, "FeedForward(8, 32, 0.5)")
    with torch.no_grad():
        mine.w_1.weight.zero_()
        mine.w_1.bias.fill_(1.0)
    torch.manual_seed(0)
    if torch.equal(mine.train()(x), mine.eval()(x)):
        raise Miss("no dropout on the hidden activations in training mode",
                   "dropout=0.5, W_1 = 0 and b_1 = 1 (hidden activations all 1): the training-mode output "
                   "equals the eval-mode output.")
    # ... and not on the output: with W_2 = 0 the output is b_2, whatever dropout does inside.
    with torch.no_grad():
        mine.w_2.weight.zero_()
    torch.manual_seed(0)
    same(mine.train()(x), mine.eval()(x), "the output in training mode",
         "dropout=0.5 and W_2 = 0, so the output must be b_2: dropout goes on the hidden activations only")


@question(QUESTIONS, 2, 3, "SublayerConnection (Post-LN and Pre-LN)", forbid=["transformer.encoder.SublayerConnection"])
def q2(ns):
    cls = need(ns, "SublayerConnection", "class")
    sublayer = scramble(nn.Linear(8, 8), 3)
    x = rand(2, 5, 8, seed=4)
    for pre_norm in (False, True):
        ref = scramble(SublayerConnection(8, 0.1, pre_norm), 5).eval()
        mine = copy_weights(cls(8, 0.1, pre_norm), ref, f"SublayerConnection(8, 0.1, pre_norm={pre_norm})").eval()
        same(mine(x, sublayer), ref(x, sublayer), "the output",
             f"pre_norm={pre_norm}, sublayer = a linear layer, eval mode")
    for pre_norm in (False, True):
        mine = guard(cls(8, 0.5, pre_norm), f"SublayerConnection(8, 0.5, pre_norm={pre_norm})")
        torch.manual_seed(0)
        if torch.equal(mine.train()(x, torch.ones_like), mine.eval()(x, torch.ones_like)):
            raise Miss("no dropout on the sublayer's output in training mode",
                       f"pre_norm={pre_norm}, dropout=0.5, sublayer(x) = 1: the training-mode output equals the eval-mode output.")
        # dropout on the sublayer's output only: when that output is 0, dropout changes nothing
        torch.manual_seed(0)
        same(mine.train()(x, torch.zeros_like), mine.eval()(x, torch.zeros_like), "the output in training mode",
             f"pre_norm={pre_norm}, dropout=0.5, sublayer(x) = 0: dropout goes on the sublayer's output, not on x or the sum")


@question(QUESTIONS, 3, 3, "EncoderLayer", forbid=["transformer.encoder.EncoderLayer", "transformer.encoder.Encoder"])
def q3(ns):
    cls = need(ns, "EncoderLayer", "class")
    x = rand(2, 6, 8, seed=6)
    ids = randint(1, 9, (2, 6), seed=7)
    ids[0, 4:] = 0
    mask = padding_mask(ids, 0)
    for pre_norm in (False, True):
        ref = scramble(EncoderLayer(8, 2, 16, 0.1, pre_norm=pre_norm), 8).eval()
        mine = copy_weights(cls(8, 2, 16, 0.1, pre_norm=pre_norm), ref,
                            f"EncoderLayer(8, 2, 16, 0.1, pre_norm={pre_norm})").eval()
        same(mine(x), ref(x), "the output", f"pre_norm={pre_norm}, no mask")
        same(mine(x, mask), ref(x, mask), "the output", f"pre_norm={pre_norm}, padding mask")
    xx = x.clone().requires_grad_()
    mine(xx, mask).pow(2).sum().backward()
    xr = x.clone().requires_grad_()
    ref(xr, mask).pow(2).sum().backward()
    same(xx.grad, xr.grad, "the gradient with respect to x")


@question(QUESTIONS, 4, 1, "parameters of one base encoder layer")
def q4(ns):
    check_number(ns, "answer_q4", sum(p.numel() for p in EncoderLayer(512, 8, 2048).parameters()), rel=0)


@question(QUESTIONS, 5, 1, "LayerNorms in a Pre-LN encoder")
def q5(ns):
    enc = Encoder(6, 8, 2, 16, pre_norm=True)
    check_number(ns, "answer_q5", sum(isinstance(m, nn.LayerNorm) for m in enc.modules()), rel=0)
