# Question 5 (4 points): beam_search
# WRONG: hypotheses are ranked and scored by log P alone; alpha is ignored.
from transformer.attention import causal_mask, padding_mask

@torch.no_grad()
def beam_search(model, src, bos_id, eos_id, max_len, beam_size=4, alpha=0.6, ban=()):
    "The best hypothesis for one source sentence src (1, len_s): (token ids without bos and eos, log P / lp)."
    pad_id = model.cfg.pad_id
    src_mask = padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    beams = [([bos_id], 0.0, False)]
    for _ in range(max_len):
        if all(finished for _, _, finished in beams):
            break
        candidates = []
        for tokens, logp, finished in beams:
            if finished:
                candidates.append((tokens, logp, True))
                continue
            logits = model.decode(torch.tensor([tokens]), memory, src_mask, causal_mask(len(tokens)))[0, -1]
            step = F.log_softmax(logits.float(), dim=-1)
            for token, token_logp in enumerate(step.tolist()):
                if token != pad_id and token not in ban:
                    candidates.append((tokens + [token], logp + token_logp, token == eos_id))
        beams = sorted(candidates, key=lambda hyp: hyp[1], reverse=True)[:beam_size]
    tokens, logp, finished = max(beams, key=lambda hyp: hyp[1])
    return (tokens[1:-1] if finished else tokens[1:]), logp
