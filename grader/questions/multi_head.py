"""Exercise 2: multi-head attention."""
import torch

from transformer.attention import causal_mask, padding_mask
from transformer.multi_head import MultiHeadAttention
from ..checks import Miss, check_number, copy_weights, need, question, rand, randint, same

NOTEBOOK = "02_multi_head"
QUESTIONS = []
NO_MHA = ["transformer.multi_head.MultiHeadAttention", "torch.nn.MultiheadAttention",
          "torch.nn.functional.multi_head_attention_forward"]


@question(QUESTIONS, 1, 2, "split_heads", forbid=NO_MHA)
def q1(ns):
    f = need(ns, "split_heads", "function")
    x = rand(2, 5, 12, seed=1)
    for h in (3, 4, 1):
        same(f(x, h), MultiHeadAttention(12, h).split_heads(x), f"split_heads(x, h={h})", "x of shape (2, 5, 12)")


@question(QUESTIONS, 2, 1, "merge_heads", forbid=NO_MHA)
def q2(ns):
    f = need(ns, "merge_heads", "function")
    for h in (3, 4):
        x = rand(2, h, 5, 12 // h, seed=h)
        same(f(x), MultiHeadAttention(12, h).merge_heads(x), "merge_heads(x)", f"x of shape {tuple(x.shape)}")


@question(QUESTIONS, 3, 4, "MultiHeadAttention", forbid=NO_MHA)
def q3(ns):
    cls = need(ns, "MultiHeadAttention", "class")
    for d_model, h in ((12, 3), (8, 4)):
        torch.manual_seed(d_model)
        ref = MultiHeadAttention(d_model, h).eval()
        for p in ref.parameters():                       # non-zero biases, so forgetting one shows
            torch.nn.init.normal_(p, std=0.3)
        mine = copy_weights(cls(d_model, h), ref, f"MultiHeadAttention({d_model}, {h})").eval()
        x = rand(2, 5, d_model, seed=1)
        same(mine(x, x, x), ref(x, x, x), "the output", f"self-attention, d_model={d_model}, h={h}")
        same(mine(x, x, x, causal_mask(5)), ref(x, x, x, causal_mask(5)), "the output",
             f"self-attention with a causal mask, d_model={d_model}, h={h}")
        q, kv = rand(2, 4, d_model, seed=2), rand(2, 6, d_model, seed=3)
        ids = randint(1, 9, (2, 6), seed=4)
        ids[1, 3:] = 0
        m = padding_mask(ids, 0)
        same(mine(q, kv, kv, m), ref(q, kv, kv, m), "the output",
             f"cross-attention, len_q=4, len_k=6, padding mask, d_model={d_model}, h={h}")
    qq = q.clone().requires_grad_()
    mine(qq, kv, kv, m).pow(2).sum().backward()
    ref_q = q.clone().requires_grad_()
    ref(ref_q, kv, kv, m).pow(2).sum().backward()
    if qq.grad is None:
        raise Miss("no gradient flows to the query", "Use differentiable torch operations.")
    same(qq.grad, ref_q.grad, "the gradient with respect to the query")
    for name, p in ref.named_parameters():
        got = dict(mine.named_parameters())[name].grad
        if got is None:
            raise Miss(f"no gradient reaches `{name}`", "Every projection must be used in forward.")
        same(got, p.grad, f"the gradient of `{name}`")


@question(QUESTIONS, 4, 1, "parameters of one multi-head attention layer")
def q4(ns):
    check_number(ns, "answer_q4", sum(p.numel() for p in MultiHeadAttention(512, 8).parameters()), rel=0)


@question(QUESTIONS, 5, 1, "attention weights computed for 100 tokens")
def q5(ns):
    mha = MultiHeadAttention(16, 8)
    mha.store_weights = True
    x = torch.zeros(1, 100, 16)
    mha(x, x, x)
    check_number(ns, "answer_q5", mha.weights.numel(), rel=0)
