# Question 1 (2 points): causal_mask
# WRONG: the diagonal is excluded (tril(-1)), so a position may not attend to itself.
def causal_mask(size):
    "Boolean mask (1, 1, size, size): position i may attend to positions 0..i (True = attend)."
    return torch.ones(size, size, dtype=torch.bool).tril(-1).view(1, 1, size, size)
