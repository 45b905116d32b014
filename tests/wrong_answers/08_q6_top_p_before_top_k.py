# Question 6 (3 points): sampling_probs
# WRONG: top-p is applied before top-k (on the full distribution), not after it.
def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    "The next-token distribution after temperature (a number, or one per row), top-k and top-p."
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).float()
    probs = (logits / temperature).softmax(dim=-1)
    if top_p is not None:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        keep = torch.zeros_like(sorted_p, dtype=torch.bool).scatter(-1, order, sorted_p.cumsum(dim=-1) - sorted_p < top_p)
        probs = probs * keep
    if top_k is not None:
        kth = probs.topk(top_k, dim=-1).values[..., -1:]
        probs = probs.masked_fill(probs < kth, 0.0)
    return probs / probs.sum(dim=-1, keepdim=True)
