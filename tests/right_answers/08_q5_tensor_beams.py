# Question 5 (4 points): beam_search
# RIGHT: the beams as tensors, one decoder call per step for all beams, topk over the beam x vocabulary scores.
from transformer.attention import causal_mask, padding_mask
from transformer.generation import length_penalty

@torch.no_grad()
def beam_search(model, src, bos_id, eos_id, max_len, beam_size=4, alpha=0.6, ban=()):
    "The best hypothesis for one source sentence src (1, len_s): (token ids without bos and eos, log P / lp)."
    pad_id = model.cfg.pad_id
    src_mask = padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.tensor([[bos_id]])                                 # (beams, t)
    logp = torch.zeros(1, dtype=torch.float64)                    # (beams,)
    length = torch.zeros(1, dtype=torch.long)
    done = torch.zeros(1, dtype=torch.bool)
    for _ in range(max_len):
        if done.all():
            break
        k = ys.size(0)
        logits = model.decode(ys, memory.expand(k, -1, -1), src_mask.expand(k, -1, -1, -1), causal_mask(ys.size(1)))[:, -1]
        step = F.log_softmax(logits.double(), dim=-1)              # (beams, vocab)
        step[:, pad_id] = -math.inf
        step[:, list(ban)] = -math.inf
        vocab = step.size(-1)
        stay = torch.full((vocab,), -math.inf, dtype=torch.float64)
        stay[pad_id] = 0.0                                        # a finished beam's one candidate: itself (a pad slot)
        step = torch.where(done[:, None], stay, step)
        cand = logp[:, None] + step                               # (beams, vocab)
        cand_len = length + (~done).long()
        score = cand / length_penalty(cand_len.double(), alpha)[:, None]
        n = min(beam_size, int(torch.isfinite(score).sum()))
        top = score.flatten().topk(n).indices
        beam, token = top // vocab, top % vocab
        ys = torch.cat([ys[beam], token[:, None]], dim=1)
        logp, length = cand.flatten()[top], cand_len[beam]
        done = done[beam] | (token == eos_id)
    scores = logp / length_penalty(length.double(), alpha)
    b = int(scores.argmax())
    tokens = [t for t in ys[b, 1:].tolist() if t != pad_id]
    if done[b] and tokens and tokens[-1] == eos_id:
        tokens = tokens[:-1]
    return tokens, scores[b].item()
