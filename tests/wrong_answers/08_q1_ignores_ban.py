# Question 1 (3 points): greedy_search
# WRONG: `ban` is accepted but never applied: a banned <unk> that the model likes best is still chosen.
from transformer.attention import causal_mask, padding_mask

@torch.no_grad()
def greedy_search(model, src, bos_id, eos_id, max_len, ban=()):
    "The most likely token (never padding, never an id in `ban`) at every step, for sources (batch, len_s): a token-id list per sentence."
    pad_id = model.cfg.pad_id
    src_mask = padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long)
    done = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(max_len):
        logits = model.decode(ys, memory, src_mask, causal_mask(ys.size(1)))[:, -1]
        logits[:, pad_id] = -math.inf
        next_id = logits.argmax(dim=-1).masked_fill(done, pad_id)
        ys = torch.cat([ys, next_id[:, None]], dim=1)
        if eos_id is not None:
            done = done | (next_id == eos_id)
            if done.all():
                break
    outputs = []
    for row in ys[:, 1:].tolist():
        tokens = []
        for token in row:
            if token == eos_id or token == pad_id:
                break
            tokens.append(token)
        outputs.append(tokens)
    return outputs
