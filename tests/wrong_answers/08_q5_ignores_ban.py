# Question 5 (4 points): beam_search
# WRONG: `ban` is accepted but never applied: a banned <unk> that the model likes best still wins.
from transformer.attention import causal_mask, padding_mask
from transformer.generation import length_penalty

@torch.no_grad()
def beam_search(model, src, bos_id, eos_id, max_len, beam_size=4, alpha=0.6, ban=()):
    "The best hypothesis for one source sentence src (1, len_s): (token ids without bos and eos, log P / lp)."
    src_mask = padding_mask(src, model.cfg.pad_id)
    memory = model.encode(src, src_mask)

    def score(hyp):
        tokens, logp, finished = hyp
        return logp / length_penalty(len(tokens) - 1, alpha)

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
                if token != model.cfg.pad_id:
                    candidates.append((tokens + [token], logp + token_logp, token == eos_id))
        beams = sorted(candidates, key=score, reverse=True)[:beam_size]
    best = max(beams, key=score)
    tokens, _, finished = best
    return (tokens[1:-1] if finished else tokens[1:]), score(best)
