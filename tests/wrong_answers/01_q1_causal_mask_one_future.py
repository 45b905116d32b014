# Question 1 (2 points): causal_mask
# WRONG: shifted by one the other way (tril(1)): each position also sees the next one.
def causal_mask(size):
    "Boolean mask (1, 1, size, size): position i may attend to positions 0..i (True = attend)."
    return torch.ones(size, size, dtype=torch.bool).tril(1).view(1, 1, size, size)
