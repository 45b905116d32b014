# Question 3 (3 points): scaled_dot_product_attention
# RIGHT: the softmax written out (exp of the scores minus each row's maximum, exp(-inf) = 0 at masked keys),
# with an empty row's sum replaced by 1 so that it gives zeros.
def scaled_dot_product_attention(query, key, value, mask=None):
    "softmax(Q K^T / sqrt(d_k)) V; a fully masked query row gives zeros."
    scores = torch.matmul(query, key.transpose(-1, -2)) * (1.0 / math.sqrt(key.shape[-1]))
    keep = torch.ones_like(scores) if mask is None else mask.to(scores.dtype).expand_as(scores)
    top = scores.masked_fill(keep == 0, float("-inf")).amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top)).detach()
    e = torch.exp((scores - top).masked_fill(keep == 0, float("-inf")))
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    return torch.matmul(weights, value)
