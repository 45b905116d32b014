# Question 7 (3 points): find the bug: greedy_with_cache
# WRONG: "fixed" by dropping the cache: the right tokens, but the decoder reruns the whole prefix at every step.
from transformer.attention import causal_mask, padding_mask
from transformer.generation import KVCache

@torch.no_grad()
def greedy_with_cache(model, src, bos_id, max_len):
    "Greedy decoding with a key/value cache, one new token per step, eos ignored: token ids (batch, max_len)."
    src_mask = padding_mask(src, model.cfg.pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long)
    for t in range(max_len):
        logits = model.decode(ys, memory, src_mask, causal_mask(ys.size(1)))[:, -1]
        logits[:, model.cfg.pad_id] = -math.inf
        ys = torch.cat([ys, logits.argmax(dim=-1, keepdim=True)], dim=1)
    return ys[:, 1:]
