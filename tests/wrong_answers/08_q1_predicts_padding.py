# Question 1 (3 points): greedy_search
# WRONG: the padding token is not excluded, so a sentence can "predict" pad (running all max_len steps is harmless).
from transformer.attention import causal_mask, padding_mask

@torch.no_grad()
def greedy_search(model, src, bos_id, eos_id, max_len, ban=()):
    "The most likely token (never padding, never an id in `ban`) at every step, for sources (batch, len_s): a token-id list per sentence."
    src_mask = padding_mask(src, model.cfg.pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long)
    for _ in range(max_len):
        logits = model.decode(ys, memory, src_mask, causal_mask(ys.size(1)))[:, -1]
        logits[:, list(ban)] = -math.inf
        ys = torch.cat([ys, logits.argmax(dim=-1, keepdim=True)], dim=1)
    rows = ys[:, 1:].tolist()
    return [row[:row.index(eos_id)] if eos_id in row else row for row in rows]
