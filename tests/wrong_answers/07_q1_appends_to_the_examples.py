# Question 1 (3 points): make_batch
# WRONG: the right batch, but it appends eos to the caller's target lists: the next epoch's batch has two
from transformer.attention import causal_mask, padding_mask
from transformer.training import Batch

def make_batch(examples, pad_id, bos_id, eos_id):
    "Pad (src_ids, tgt_ids) pairs into a Batch: src, tgt_in = bos + tgt, tgt_out = tgt + eos, masks, n_tokens."
    def pad(rows):
        width = max(len(r) for r in rows)
        return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows], dtype=torch.long)
    src = pad([s for s, _ in examples])
    tgt_in = pad([[bos_id] + t for _, t in examples])
    for _, t in examples:
        t.append(eos_id)
    tgt_out = pad([t for _, t in examples])
    src_mask = padding_mask(src, pad_id)
    tgt_mask = padding_mask(tgt_in, pad_id) & causal_mask(tgt_in.size(1))
    return Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, int((tgt_out != pad_id).sum()))
