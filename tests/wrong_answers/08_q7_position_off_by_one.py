# Question 7 (3 points): find the bug: greedy_with_cache
# WRONG: start=ys.size(1), one past the new token's position (the prefix already holds <bos> at position 0).
from transformer.attention import padding_mask
from transformer.generation import KVCache

@torch.no_grad()
def greedy_with_cache(model, src, bos_id, max_len):
    "Greedy decoding with a key/value cache, one new token per step, eos ignored: token ids (batch, max_len)."
    src_mask = padding_mask(src, model.cfg.pad_id)
    memory = model.encode(src, src_mask)
    cache = KVCache(model, memory)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long)
    for t in range(max_len):
        logits = model.decode(ys[:, -1:], memory, src_mask, None, cache.layers, start=ys.size(1))[:, -1]
        logits[:, model.cfg.pad_id] = -math.inf
        ys = torch.cat([ys, logits.argmax(dim=-1, keepdim=True)], dim=1)
    return ys[:, 1:]
