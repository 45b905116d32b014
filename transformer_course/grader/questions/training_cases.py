"""The cases and helpers of training.py's questions (exercise training): inputs, expected values, references."""

import torch

from transformer.model import Transformer, TransformerConfig
from transformer.training import LabelSmoothingLoss, make_batch, reverse_task

from ..tensors import rand

PAD, BOS, EOS = 0, 2, 3  # the special ids of chapter 7; real tokens start at 4

# ---------------------------------------------------------------- 1: batches
BATCHES = [  # (examples, pad_id, bos_id, eos_id, case)
    (
        [([5, 6, 7], [8, 9]), ([4], [10, 11, 12, 13]), ([6, 7, 8, 9, 4], [5])],
        0,
        2,
        3,
        "3 pairs of different lengths, pad 0, bos 2, eos 3",
    ),
    ([([9, 8], [7, 6, 5]), ([4, 4, 4], [6])], 1, 2, 3, "2 pairs, pad_id=1"),
    ([([4, 5, 6], [7, 8])], 0, 2, 3, "a single pair (nothing to pad)"),
    (
        [([4, 5], []), ([6], [7, 8, 9])],
        0,
        2,
        3,
        "an empty target: the decoder reads bos and must predict eos",
    ),
]

# ---------------------------------------------------------------- 3: the loss
LOSS_CASES = [  # (logits, target, smoothing, pad_id, case)
    (
        rand(2, 6, 9, seed=1) * 2,
        torch.tensor([[4, 6, 8, 5, 0, 0], [7, 1, 3, 2, 4, 0]]),
        0.1,
        0,
        "logits (2, 6, 9), padded target, smoothing 0.1, pad 0",
    ),
    (
        rand(3, 4, 7, seed=2),
        torch.tensor([[2, 2, 5, 6], [0, 3, 1, 1], [4, 1, 1, 1]]),
        0.3,
        1,
        "logits (3, 4, 7), smoothing 0.3, pad_id=1",
    ),
    (
        rand(2, 5, 6, seed=3),
        torch.tensor([[4, 5, 2, 3, 0], [5, 0, 0, 0, 0]]),
        0.0,
        0,
        "smoothing 0: plain cross-entropy over the non-pad tokens",
    ),
    (
        rand(2, 4, 8, seed=4) * 40,
        torch.tensor([[4, 6, 7, 0], [5, 5, 0, 0]]),
        0.1,
        0,
        "large logits (a very confident model): compute log-probabilities with log_softmax",
    ),
]


# ---------------------------------------------------------------- 7: find the bug: gradient accumulation
def tiny_model(seed=0):
    "A tiny Transformer in float64, without dropout: its gradients can be compared tightly."
    torch.manual_seed(seed)
    return Transformer(TransformerConfig(14, 14, d_model=16, n_layers=1, h=2, d_ff=32, dropout=0.0)).double()


PAIRS = reverse_task(12, seed=3)  # target lengths 4, 8, 8, 3, 2, 5, 7, 3, 7, 4, 3, 4

ACCUM_CASES = [  # (the pairs of each batch, smoothing)
    ([PAIRS[4:5], PAIRS[:4] + PAIRS[5:8]], 0.1),
    ([PAIRS[:2], PAIRS[2:3], PAIRS[3:12]], 0.0),
    ([PAIRS[:5]], 0.1),
]


# ---------------------------------------------------------------- 8: what if: label smoothing and confidence
def train_tiny(smoothing, steps=60):
    """The experiment of the question's cell: a tiny Transformer fitted to 16 reversal pairs (float64, one thread, seed 0).
    Adam is written out: torch.optim's first step imports torch._dynamo, seconds in every question's fresh process."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        model = Transformer(TransformerConfig(14, 14, d_model=32, n_layers=1, h=2, d_ff=64, dropout=0.0)).double()
        batch = make_batch(reverse_task(16, seed=0), PAD, BOS, EOS)
        criterion = LabelSmoothingLoss(smoothing, PAD)
        params = list(model.parameters())
        moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
        for step in range(1, steps + 1):
            loss = criterion(model(batch.src, batch.tgt_in, batch.src_mask, batch.tgt_mask), batch.tgt_out)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():  # Adam (lr 0.01, betas 0.9 and 0.999), written out
                for p, (m, v) in zip(params, moments):
                    m.lerp_(p.grad, 0.1)
                    v.lerp_(p.grad**2, 0.001)
                    p -= 0.01 * (m / (1 - 0.9**step)) / ((v / (1 - 0.999**step)).sqrt() + 1e-8)
    finally:
        torch.set_num_threads(threads)
    return model.eval(), batch


def confidence(model, batch):
    "Mean over the real (non-pad) target positions of the largest probability the model gives."
    with torch.no_grad():
        probs = model(batch.src, batch.tgt_in, batch.src_mask, batch.tgt_mask).softmax(-1)  # (batch, len_t, vocab)
    return probs.max(-1).values[batch.tgt_out != PAD].mean().item()


# ---------------------------------------------------------------- 9: predict, then check: padding
TARGET_LENGTHS = [n for n in range(11, 31) for _ in range(2)]  # 40 targets: 11, 11, 12, 12, ..., 30, 30 tokens


def padding_share(groups):
    "The share of the padded tgt_out positions, over the batches make_batch builds from `groups`, that hold <pad>."
    batches = [make_batch([([4], [4] * n) for n in lengths], PAD, BOS, EOS) for lengths in groups]
    return sum(int((b.tgt_out == PAD).sum()) for b in batches) / sum(b.tgt_out.numel() for b in batches)
