"""Exercise 1: scaled dot-product attention."""
import math

import torch

from transformer.attention import attention_weights, causal_mask, padding_mask, scaled_dot_product_attention
from transformer.model import TransformerConfig
from ..checks import check_number, need, question, rand, randint, same

NOTEBOOK = "01_attention"
QUESTIONS = []


@question(QUESTIONS, 1, 2, "causal_mask", forbid=["transformer.attention.causal_mask"])
def q1(ns):
    f = need(ns, "causal_mask", "function")
    for size in (1, 2, 5):
        same(f(size), causal_mask(size), f"causal_mask({size})")


@question(QUESTIONS, 2, 1, "padding_mask", forbid=["transformer.attention.padding_mask"])
def q2(ns):
    f = need(ns, "padding_mask", "function")
    ids = torch.tensor([[5, 7, 2, 0, 0], [3, 0, 4, 1, 1]])
    same(f(ids, 0), padding_mask(ids, 0), "padding_mask(ids, pad_id=0)", "ids = [[5, 7, 2, 0, 0], [3, 0, 4, 1, 1]]")
    same(f(ids, 1), padding_mask(ids, 1), "padding_mask(ids, pad_id=1)", "ids = [[5, 7, 2, 0, 0], [3, 0, 4, 1, 1]]")


@question(QUESTIONS, 3, 3, "scaled_dot_product_attention",
          forbid=["transformer.attention.scaled_dot_product_attention", "transformer.attention.attention_weights",
                  "torch.nn.functional.scaled_dot_product_attention"])
def q3(ns):
    f = need(ns, "scaled_dot_product_attention", "function")
    q, k, v = rand(2, 3, 4, 16, seed=1), rand(2, 3, 6, 16, seed=2), rand(2, 3, 6, 5, seed=3)
    same(f(q, k, v), scaled_dot_product_attention(q, k, v), "the output", "no mask, len_q=4, len_k=6, d_k=16")
    pad = randint(1, 9, (2, 6), seed=4)
    pad[0, 4:] = 0
    mask = padding_mask(pad, 0)                                          # (2, 1, 1, 6)
    same(f(q, k, v, mask), scaled_dot_product_attention(q, k, v, mask), "the output", "padding mask (2, 1, 1, 6)")
    x = rand(1, 2, 5, 8, seed=5)
    same(f(x, x, x, causal_mask(5)), scaled_dot_product_attention(x, x, x, causal_mask(5)), "the output",
         "causal mask (1, 1, 5, 5), self-attention")
    full = torch.ones(1, 1, 3, 6, dtype=torch.bool)
    full[..., 1, :] = False                                              # query 1 may attend to nothing
    same(f(q[:1, :1, :3], k[:1, :1], v[:1, :1], full), scaled_dot_product_attention(q[:1, :1, :3], k[:1, :1], v[:1, :1], full),
         "the output", "a fully masked query row must give zeros, not NaN")
    # gradients flow to q, k and v as in the reference
    grads = []
    for fn in (f, scaled_dot_product_attention):
        qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
        (fn(qq, kk, vv, mask) * rand(2, 3, 4, 5, seed=6)).sum().backward()
        grads.append([t.grad for t in (qq, kk, vv)])
    for name, got, want in zip("qkv", *grads):
        if got is None:
            raise_no_grad(name)
        same(got, want, f"the gradient with respect to {name}", "padding mask")


def raise_no_grad(name):
    from ..checks import Miss
    raise Miss(f"no gradient flows to {name}", "Use differentiable torch operations (no .detach(), .item() or numpy).")


EXAMPLE_Q = torch.tensor([1.0, 0.0, 1.0, 0.0])
EXAMPLE_K = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]])


@question(QUESTIONS, 4, 1, "attention weight in a 3-token example")
def q4(ns):
    check_number(ns, "answer_q4", attention_weights(EXAMPLE_Q.view(1, 4), EXAMPLE_K)[0, 2].item())


@question(QUESTIONS, 5, 1, "standard deviation of q·k for d_k = 64")
def q5(ns):
    check_number(ns, "answer_q5", math.sqrt(TransformerConfig.base(1, 1).d_k))
