# Question 7 (3 points): find the bug: greedy_with_cache
# RIGHT: the new token's position read from the cache (the positions it holds), eos ignored as asked.
from transformer.attention import padding_mask
from transformer.generation import KVCache

@torch.no_grad()
def greedy_with_cache(model, src, bos_id, max_len):
    "Greedy decoding with a key/value cache, one new token per step, eos ignored: token ids (batch, max_len)."
    src_mask = padding_mask(src, model.cfg.pad_id)
    memory = model.encode(src, src_mask)
    cache = KVCache(model, memory)
    last = torch.full((src.size(0), 1), bos_id, dtype=torch.long)
    out = []
    for _ in range(max_len):
        logits = model.decode(last, memory, src_mask, None, cache.layers, start=len(cache))[:, -1]
        logits[:, model.cfg.pad_id] = -math.inf
        last = logits.argmax(dim=-1, keepdim=True)
        out.append(last)
    return torch.cat(out, dim=1)
