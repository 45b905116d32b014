"""Exercise 7: training."""
import torch
from torch import nn

from transformer.training import LabelSmoothingLoss, make_batch, noam_lr, smoothed_targets
from ..checks import Miss, check_number, guard, need, question, rand, randint, same

NOTEBOOK = "07_training"
QUESTIONS = []


# ---------------------------------------------------------------- 1: batches
BATCHES = [  # (examples, pad_id, bos_id, eos_id, case)
    ([([5, 6, 7], [8, 9]), ([4], [10, 11, 12, 13]), ([6, 7, 8, 9, 4], [5])], 0, 2, 3,
     "3 pairs of different lengths, pad 0, bos 2, eos 3"),
    ([([9, 8], [7, 6, 5]), ([4, 4, 4], [6])], 1, 2, 3, "2 pairs, pad_id=1"),
    ([([4, 5, 6], [7, 8])], 0, 2, 3, "a single pair (nothing to pad)"),
    ([([4, 5], []), ([6], [7, 8, 9])], 0, 2, 3, "an empty target: the decoder reads bos and must predict eos"),
]


@question(QUESTIONS, 1, 3, "make_batch", forbid=["transformer.training.make_batch"])
def q1(ns):
    f = need(ns, "make_batch", "function")
    for examples, pad, bos, eos, case in BATCHES:
        want = make_batch(examples, pad, bos, eos)
        got = f([(list(s), list(t)) for s, t in examples], pad, bos, eos)
        for name in ("src", "tgt_in", "tgt_out", "src_mask", "tgt_mask"):
            if not hasattr(got, name):
                raise Miss(f"the result has no field `{name}`", "Return a `Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, n_tokens)`.")
            same(getattr(got, name), getattr(want, name), f"`{name}`", f"{case}; examples = {examples}")
        n = getattr(got, "n_tokens", None)
        if n is None:
            raise Miss("the result has no field `n_tokens`", "Return a `Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, n_tokens)`.")
        if isinstance(n, torch.Tensor):
            n = n.item()
        if n != want.n_tokens:
            raise Miss("wrong `n_tokens`", f"{case}; examples = {examples}: expected {want.n_tokens}, got {n}.")


# ---------------------------------------------------------------- 2: the smoothed target
@question(QUESTIONS, 2, 2, "smoothed_targets", forbid=["transformer.training.smoothed_targets"])
def q2(ns):
    f = need(ns, "smoothed_targets", "function")
    cases = [(torch.tensor([[4, 6, 5, 0], [3, 0, 0, 0]]), 7, 0.1, 0, "target (2, 4) with padding, vocab 7, smoothing 0.1, pad 0"),
             (torch.tensor([5, 9, 3, 2, 10]), 11, 0.3, 2, "target (5,) with one pad, vocab 11, smoothing 0.3, pad_id=2"),
             (randint(1, 9, (3, 5), seed=1), 9, 0.0, 0, "smoothing 0: one-hot targets")]
    for target, vocab, smoothing, pad, case in cases:
        got = f(target.clone(), vocab, smoothing, pad)
        want = smoothed_targets(target, vocab, smoothing, pad)
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
            same(got, want, "the distribution", case)            # says what is wrong with the type or shape
        real = target != pad                                      # rows of padding targets are ignored by the loss
        same(got[real], want[real], "the distribution of non-pad targets", f"{case}; target = {target.tolist()}")


# ---------------------------------------------------------------- 3: the loss
LOSS_CASES = [  # (logits, target, smoothing, pad_id, case)
    (rand(2, 6, 9, seed=1) * 2, torch.tensor([[4, 6, 8, 5, 0, 0], [7, 1, 3, 2, 4, 0]]), 0.1, 0,
     "logits (2, 6, 9), padded target, smoothing 0.1, pad 0"),
    (rand(3, 4, 7, seed=2), torch.tensor([[2, 2, 5, 6], [0, 3, 1, 1], [4, 1, 1, 1]]), 0.3, 1,
     "logits (3, 4, 7), smoothing 0.3, pad_id=1"),
    (rand(2, 5, 6, seed=3), torch.tensor([[4, 5, 2, 3, 0], [5, 0, 0, 0, 0]]), 0.0, 0,
     "smoothing 0: plain cross-entropy over the non-pad tokens"),
    (rand(2, 4, 8, seed=4) * 40, torch.tensor([[4, 6, 7, 0], [5, 5, 0, 0]]), 0.1, 0,
     "large logits (a very confident model): compute log-probabilities with log_softmax"),
]


@question(QUESTIONS, 3, 3, "LabelSmoothingLoss", forbid=["transformer.training.LabelSmoothingLoss"])
def q3(ns):
    cls = need(ns, "LabelSmoothingLoss", "class")
    for logits, target, smoothing, pad, case in LOSS_CASES:
        mine = cls(smoothing, pad)
        if not isinstance(mine, nn.Module):
            raise Miss("LabelSmoothingLoss is not an nn.Module", "Subclass nn.Module and write forward(logits, target).")
        mine = guard(mine, f"LabelSmoothingLoss({smoothing}, {pad})")
        ref = LabelSmoothingLoss(smoothing, pad)
        x_mine, x_ref = logits.clone().requires_grad_(), logits.clone().requires_grad_()
        got, want = mine(x_mine, target.clone()), ref(x_ref, target)
        same(got, want, "the loss", case)
        if not got.requires_grad:
            raise Miss("no gradient flows to the logits", "Use differentiable torch operations (no .detach(), .item() or numpy).")
        got.backward()
        want.backward()
        same(x_mine.grad, x_ref.grad, "the gradient with respect to the logits", case)


@question(QUESTIONS, 4, 1, "the lowest label-smoothed loss")
def q4(ns):
    # the cross-entropy H(q, p) is smallest at p = q, where it is the entropy of q
    q = smoothed_targets(torch.tensor([5]), 37000, 0.1, 0)[0].double()
    q = q[q > 0]
    check_number(ns, "answer_q4", -(q * q.log()).sum().item())


# ---------------------------------------------------------------- 5, 6: the learning rate
@question(QUESTIONS, 5, 2, "noam_lr", forbid=["transformer.training.noam_lr", "transformer.training.make_optimizer"])
def q5(ns):
    f = need(ns, "noam_lr", "function")
    for step in (1, 10, 3999, 4000, 4001, 20000, 100000):
        for d_model, warmup, factor in ((512, 4000, 1.0), (1024, 8000, 2.0)):
            got, want = f(step, d_model, warmup, factor), noam_lr(step, d_model, warmup, factor)
            try:
                got = float(got)
            except (TypeError, ValueError):
                raise Miss("the result is not a number", f"noam_lr({step}, {d_model}, {warmup}, {factor}) "
                                                         f"returned a {type(got).__name__}.") from None
            if abs(got - want) > 1e-9 * want:
                raise Miss("wrong learning rate", f"step={step}, d_model={d_model}, warmup={warmup}, factor={factor}: "
                                                  f"expected {want:.4g}, got {got:.4g}.")
    if abs(float(f(300, 512, 4000)) - noam_lr(300, 512, 4000)) > 1e-9 * noam_lr(300, 512, 4000):
        raise Miss("wrong default factor", "noam_lr(300, 512, 4000) should use factor=1.0.")


@question(QUESTIONS, 6, 1, "the peak learning rate of the base model")
def q6(ns):
    check_number(ns, "answer_q6", noam_lr(4000, 512, 4000))
