# Question 9 (2 points): the padding share of sorted batches
# RIGHT: measured on the tensors the package's make_batch builds.
from transformer.training import make_batch
pairs = [([4], [5] * n) for n in range(11, 31) for _ in range(2)]
def share(groups):
    outs = [make_batch(g, 0, 2, 3).tgt_out for g in groups]
    return sum((o == 0).sum().item() for o in outs) / sum(o.numel() for o in outs)
ordered = sorted(pairs, key=lambda p: len(p[1]))
answer_q9_one = share([pairs])
answer_q9_sorted = share([ordered[i:i + 10] for i in range(0, 40, 10)])
