"""Exercise 7: training."""

import torch
from torch import nn

from transformer.training import LabelSmoothingLoss, make_batch, noam_lr, smoothed_targets

from ..checks import Miss, check_choices, check_number, question
from ..learner import guard, need
from ..tensors import randint, same
from .training_cases import (
    # noqa: F401
    ACCUM_CASES,
    BATCHES,
    BOS,
    EOS,
    LOSS_CASES,
    PAD,
    TARGET_LENGTHS,
    confidence,
    padding_share,
    tiny_model,
    train_tiny,
)

NOTEBOOK = "07_training"

QUESTIONS = []


@question(QUESTIONS, 1, 3, "make_batch", forbid=["transformer.training.make_batch"])
def q1(ns):
    f = need(ns, "make_batch", "function")
    for examples, pad, bos, eos, case in BATCHES:
        want = make_batch(examples, pad, bos, eos)
        got = f([(list(s), list(t)) for s, t in examples], pad, bos, eos)
        for name in ("src", "tgt_in", "tgt_out", "src_mask", "tgt_mask"):
            if not hasattr(got, name):
                raise Miss(
                    f"the result has no field `{name}`",
                    "Return a `Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, n_tokens)`.",
                )
            same(getattr(got, name), getattr(want, name), f"`{name}`", f"{case}; examples = {examples}")
        n = getattr(got, "n_tokens", None)
        if n is None:
            raise Miss(
                "the result has no field `n_tokens`",
                "Return a `Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, n_tokens)`.",
            )
        if isinstance(n, bool) or not isinstance(n, int):
            raise Miss(
                "`n_tokens` is not a Python int",
                f"{case}: got a {type(n).__name__}; the question asks for a "
                "Python `int` (int(tensor) or tensor.item() gives one).",
            )
        if n != want.n_tokens:
            raise Miss("wrong `n_tokens`", f"{case}; examples = {examples}: expected {want.n_tokens}, got {n}.")


# ---------------------------------------------------------------- 2: the smoothed target
@question(QUESTIONS, 2, 2, "smoothed_targets", forbid=["transformer.training.smoothed_targets"])
def q2(ns):
    f = need(ns, "smoothed_targets", "function")
    cases = [
        (
            torch.tensor([[4, 6, 5, 0], [3, 0, 0, 0]]),
            7,
            0.1,
            0,
            "target (2, 4) with padding, vocab 7, smoothing 0.1, pad 0",
        ),
        (
            torch.tensor([5, 9, 3, 2, 10]),
            11,
            0.3,
            2,
            "target (5,) with one pad, vocab 11, smoothing 0.3, pad_id=2",
        ),
        (randint(1, 9, (3, 5), seed=1), 9, 0.0, 0, "smoothing 0: one-hot targets"),
    ]
    for target, vocab, smoothing, pad, case in cases:
        got = f(target.clone(), vocab, smoothing, pad)
        want = smoothed_targets(target, vocab, smoothing, pad)
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
            same(got, want, "the distribution", case)  # says what is wrong with the type or shape
        real = target != pad  # rows of padding targets are ignored by the loss
        same(
            got[real],
            want[real],
            "the distribution of non-pad targets",
            f"{case}; target = {target.tolist()}",
        )


@question(QUESTIONS, 3, 3, "LabelSmoothingLoss", forbid=["transformer.training.LabelSmoothingLoss"])
def q3(ns):
    cls = need(ns, "LabelSmoothingLoss", "class")
    for logits, target, smoothing, pad, case in LOSS_CASES:
        mine = cls(smoothing, pad)
        if not isinstance(mine, nn.Module):
            raise Miss(
                "LabelSmoothingLoss is not an nn.Module",
                "Subclass nn.Module and write forward(logits, target).",
            )
        mine = guard(mine, f"LabelSmoothingLoss({smoothing}, {pad})")
        ref = LabelSmoothingLoss(smoothing, pad)
        x_mine, x_ref = logits.clone().requires_grad_(), logits.clone().requires_grad_()
        got, want = mine(x_mine, target.clone()), ref(x_ref, target)
        same(got, want, "the loss", case)
        if not got.requires_grad:
            raise Miss(
                "no gradient flows to the logits",
                "Use differentiable torch operations (no .detach(), .item() or numpy).",
            )
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
@question(QUESTIONS, 5, 2, "noam_lr", forbid=["transformer.training.noam_lr", "transformer.training.learning_rate"])
def q5(ns):
    f = need(ns, "noam_lr", "function")
    for step in (1, 10, 3999, 4000, 4001, 20000, 100000):
        for d_model, warmup, factor in ((512, 4000, 1.0), (1024, 8000, 2.0)):
            got, want = f(step, d_model, warmup, factor), noam_lr(step, d_model, warmup, factor)
            if not isinstance(got, float):  # int or tensor: the question asks for a Python float
                raise Miss(
                    "the result is not a Python float",
                    f"noam_lr({step}, {d_model}, {warmup}, {factor}) returned a {type(got).__name__}.",
                )
            if abs(got - want) > 1e-9 * want:
                raise Miss(
                    "wrong learning rate",
                    f"step={step}, d_model={d_model}, warmup={warmup}, factor={factor}: "
                    f"expected {want:.4g}, got {got:.4g}.",
                )
    if abs(float(f(300, 512, 4000)) - noam_lr(300, 512, 4000)) > 1e-9 * noam_lr(300, 512, 4000):
        raise Miss("wrong default factor", "noam_lr(300, 512, 4000) should use factor=1.0.")


@question(QUESTIONS, 6, 1, "the update at which the learning rate has halved")
def q6(ns):
    # the first update after the peak (update 4000) whose rate is at most half the peak, found by bisection on the
    # package's noam_lr (a relative slack of 1e-9 absorbs rounding: the next update down is 3e-5 above half)
    half = noam_lr(4000, 512, 4000) / 2 * (1 + 1e-9)
    lo, hi = 4000, 10**9  # noam_lr(lo) > half >= noam_lr(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if noam_lr(mid, 512, 4000) <= half else (mid, hi)
    check_number(ns, "answer_q6", hi, rel=0)


@question(QUESTIONS, 7, 3, "accumulate_gradients")
def q7(ns):
    f = need(ns, "accumulate_gradients", "function")
    for groups, smoothing in ACCUM_CASES:
        batches = [make_batch(g, PAD, BOS, EOS) for g in groups]
        whole = make_batch([p for g in groups for p in g], PAD, BOS, EOS)
        case = (
            f"{len(batches)} batch{'es' if len(batches) > 1 else ''} with "
            f"{', '.join(str(b.n_tokens) for b in batches)} target tokens, LabelSmoothingLoss({smoothing})"
        )
        criterion = LabelSmoothingLoss(smoothing, PAD)
        model = tiny_model()  # the reference: one batch with all the pairs
        criterion(model(whole.src, whole.tgt_in, whole.src_mask, whole.tgt_mask), whole.tgt_out).backward()
        want = {name: p.grad.clone() for name, p in model.named_parameters()}
        # .grad already holds something (an earlier call, say): backward adds to it, and so must the answer
        before = {name: torch.randn_like(p) for name, p in model.named_parameters()}
        for name, p in model.named_parameters():
            p.grad = before[name].clone()
        runs = []  # (rows, len_s) of each encoder run
        model.encoder.register_forward_pre_hook(lambda module, args: runs.append(tuple(args[0].shape[:2])))
        f(model, criterion, batches)
        if sorted(runs) != sorted(tuple(b.src.shape) for b in batches):
            raise Miss(
                "the model does not run once per batch",
                f"{case}: expected one forward pass per batch, of shapes {[tuple(b.src.shape) for b in batches]}; "
                f"got {runs}. Accumulation keeps one batch in memory at a time.",
            )
        for name, p in model.named_parameters():
            if p.grad is None:
                raise Miss(f"no gradient for `{name}`", f"{case}: call backward() on each batch's weighted loss.")
            same(
                p.grad,
                before[name] + want[name],
                f"the gradient of `{name}`",
                f"{case}, with .grad already holding a gradient; expected: that gradient plus the gradient of "
                "the mean loss over all the batches' target tokens (backward adds; it never resets)",
            )


@question(QUESTIONS, 8, 3, "confidence with and without label smoothing")
def q8(ns):
    # The run is float64, one thread, a fixed seed: repeated, it gives the same numbers. Another summation order (measured
    # with two threads, as another CPU's kernels would sum) moves them by 5e-9 relative. 1e-3 is far above that and still
    # tells apart a mean that includes the padding positions (2.5% lower without smoothing, 9% lower with it), another
    # smoothing (0.1: 0.887) or another number of updates (40: 0.961 and 0.635).
    for name, _ in (("answer_q8_plain", 0.0), ("answer_q8_smoothed", 0.3)):
        if ns.get(name) is None:
            raise Miss("not answered yet", f"Set `{name}` to the confidence you measured.")
    for name, smoothing in (("answer_q8_plain", 0.0), ("answer_q8_smoothed", 0.3)):
        check_number(ns, name, confidence(*train_tiny(smoothing)), rel=1e-3)


@question(QUESTIONS, 9, 2, "the padding share of sorted batches")
def q9(ns):
    for name in ("answer_q9_one", "answer_q9_sorted"):
        if ns.get(name) is None:
            raise Miss("not answered yet", f"Set `{name}` to a share between 0 and 1.")
    order = sorted(TARGET_LENGTHS)
    check_number(ns, "answer_q9_one", padding_share([TARGET_LENGTHS]))
    check_number(ns, "answer_q9_sorted", padding_share([order[i : i + 10] for i in range(0, 40, 10)]))


# ---------------------------------------------------------------- 10: explain with a number: what smoothing costs
@question(QUESTIONS, 10, 2, "what label smoothing does to perplexity")
def q10(ns):
    # (a) at the minimum p = q, so p(y) = 0.9 and the perplexity is 1 / 0.9; (d) the gradient is p - q.
    # (b) the loss there is H(q), not 0; (c) q(<pad>) = 0; (e) the arg-max stays the reference (question 8: accuracy 1).
    check_choices(ns, "answer_q10", correct="ad", options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Pad each list of rows to its longest with pad_id, as torch.long; tgt_in is [bos] + t and tgt_out is "
        "t + [eos]; combine padding_mask and causal_mask for the target; n_tokens is int(...) of the non-pad "
        "count."
    ),
    2: (
        "torch.full((*target.shape, vocab), smoothing / (vocab - 2)), zero the padding column, then scatter 1 "
        "- smoothing into each target's column."
    ),
    3: (
        "Use log_softmax on the logits, multiply by the smoothed targets, sum over the vocabulary, and "
        "average over the non-pad positions only."
    ),
    4: (
        "The loss is smallest at p = q, where it equals the entropy of q: one token with 1 - 0.1 and V - 2 "
        "tokens sharing 0.1."
    ),
    5: (
        "Return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5) as a Python float (math, "
        "not torch)."
    ),
    6: (
        "After the peak the rate is proportional to step ** -0.5: by what factor must the step grow for the "
        "rate to halve?"
    ),
    7: (
        "Weight each batch's mean loss by its share of all target tokens: loss * b.n_tokens / total, with "
        "total summed over the batches first."
    ),
    8: (
        "Call train_tiny(0.0) and train_tiny(0.3); for each, take softmax of the logits, the maximum per "
        "position, and average over the non-pad target positions."
    ),
    9: (
        "tgt_out has length + 1 tokens per row. One batch pads every row to 31; after sorting, each batch of "
        "10 pads to its own longest row."
    ),
    10: (
        "Compute the loss and perplexity of p = q yourself; think about what the gradient p - q is at p = q, "
        "and where the smoothed mass goes."
    ),
}
