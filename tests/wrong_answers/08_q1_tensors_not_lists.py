# Question 1 (3 points): greedy_search
# WRONG: the right tokens, but each sentence comes back as a tensor, not the Python list of ids the question asks for
from transformer.attention import causal_mask, padding_mask

@torch.no_grad()
def greedy_search(model, src, bos_id, eos_id, max_len, ban=()):
    "The most likely token (never padding, never an id in `ban`) at every step, for sources (batch, len_s): a token-id list per sentence."
    pad_id = model.cfg.pad_id
    src_mask = padding_mask(src, pad_id)                          # (batch, 1, 1, len_s)
    memory = model.encode(src, src_mask)                          # (batch, len_s, d_model)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long)   # (batch, 1)
    done = torch.zeros(src.size(0), dtype=torch.bool)             # (batch,)
    for _ in range(max_len):
        tgt_mask = causal_mask(ys.size(1))                        # (1, 1, t, t)
        logits = model.decode(ys, memory, src_mask, tgt_mask)[:, -1]   # (batch, vocab)
        logits[:, pad_id] = -math.inf                             # padding is never a prediction
        logits[:, list(ban)] = -math.inf                          # nor is a banned id
        next_id = logits.argmax(dim=-1).masked_fill(done, pad_id) # (batch,)
        ys = torch.cat([ys, next_id[:, None]], dim=1)             # (batch, t + 1)
        if eos_id is not None:
            done = done | (next_id == eos_id)
            if done.all():
                break
    outputs = []
    for row in ys[:, 1:].tolist():
        tokens = []
        for token in row:
            if token == eos_id or token == pad_id:                # pad only follows a finished sentence
                break
            tokens.append(token)
        outputs.append(torch.tensor(tokens, dtype=torch.long))
    return outputs
