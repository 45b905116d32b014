# Question 2 (2 points): smoothed_targets
# WRONG: label smoothing spread over the padding token too (smoothing / (vocab - 1) on every other token).
def smoothed_targets(target, vocab, smoothing=0.1, pad_id=0):
    "Label-smoothed target distribution (..., vocab) for target ids (...)."
    dist = torch.full((*target.shape, vocab), smoothing / (vocab - 1))
    return dist.scatter(-1, target.unsqueeze(-1), 1.0 - smoothing)
