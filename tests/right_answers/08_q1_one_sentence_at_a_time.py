# Question 1 (3 points): greedy_search
# RIGHT: one sentence at a time (its padding cut off), Python lists, a set of forbidden ids.
from transformer.attention import causal_mask, padding_mask

@torch.no_grad()
def greedy_search(model, src, bos_id, eos_id, max_len, ban=()):
    "The most likely token (never padding, never an id in `ban`) at every step, for sources (batch, len_s): a token-id list per sentence."
    pad_id = model.cfg.pad_id
    forbidden = sorted({pad_id, *ban})
    outputs = []
    for row in src:
        one = row[row != pad_id][None]                            # (1, real length)
        mask = padding_mask(one, pad_id)
        memory = model.encode(one, mask)
        ys = [bos_id]
        for _ in range(max_len):
            logits = model.decode(torch.tensor([ys]), memory, mask, causal_mask(len(ys)))[0, -1].clone()
            logits[forbidden] = -float("inf")
            token = int(logits.argmax())
            if token == eos_id:
                break
            ys.append(token)
        outputs.append(ys[1:])
    return outputs
