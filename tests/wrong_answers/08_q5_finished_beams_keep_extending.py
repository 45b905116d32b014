# Question 5 (4 points): beam_search
# WRONG: a beam search that forgets to stop finished beams: they keep being extended after eos (and keep accumulating score).
from transformer.attention import causal_mask, padding_mask
from transformer.generation import length_penalty

@torch.no_grad()
def beam_search(model, src, bos_id, eos_id, max_len, beam_size=4, alpha=0.6, ban=()):
    "The best hypothesis for one source sentence src (1, len_s): (token ids without bos and eos, log P / lp)."
    pad_id = model.cfg.pad_id
    src_mask = padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)

    def score(hyp):
        tokens, logp = hyp
        return logp / length_penalty(len(tokens) - 1, alpha)

    beams = [([bos_id], 0.0)]
    for _ in range(max_len):
        if all(eos_id in tokens for tokens, _ in beams):
            break
        candidates = []
        for tokens, logp in beams:
            logits = model.decode(torch.tensor([tokens]), memory, src_mask, causal_mask(len(tokens)))[0, -1]
            step = F.log_softmax(logits.float(), dim=-1)
            for token, token_logp in enumerate(step.tolist()):
                if token != pad_id and token not in ban:
                    candidates.append((tokens + [token], logp + token_logp))
        beams = sorted(candidates, key=score, reverse=True)[:beam_size]
    best = max(beams, key=score)
    tokens = best[0][1:]
    if eos_id in tokens:
        tokens = tokens[:tokens.index(eos_id)]
    return tokens, score(best)
