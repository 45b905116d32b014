# Question 6 (3 points): sampling_probs
# WRONG: a tensor of temperatures is reduced to one number (its mean) for the whole batch.
def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    "The next-token distribution after temperature (a number, or one per row), top-k and top-p."
    if isinstance(temperature, torch.Tensor):
        temperature = temperature.float().mean().item()
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).float()
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, -math.inf)
    probs = logits.softmax(dim=-1)
    if top_p is not None:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        mass_before = sorted_p.cumsum(dim=-1) - sorted_p
        keep = torch.zeros_like(mass_before, dtype=torch.bool).scatter(-1, order, mass_before < top_p)
        probs = probs * keep
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs
