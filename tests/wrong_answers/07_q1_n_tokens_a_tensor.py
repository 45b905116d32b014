# Question 1 (3 points): make_batch
# WRONG: every tensor right, but n_tokens is a 0-d tensor, not the Python int the question asks for
from transformer.attention import causal_mask, padding_mask
from transformer.training import Batch

def make_batch(examples, pad_id, bos_id, eos_id):
    "Pad (src_ids, tgt_ids) pairs into a Batch: src, tgt_in = bos + tgt, tgt_out = tgt + eos, masks, n_tokens."
    def pad(rows):
        width = max(len(r) for r in rows)
        return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows], dtype=torch.long)
    src = pad([list(s) for s, _ in examples])
    tgt_in = pad([[bos_id] + list(t) for _, t in examples])
    tgt_out = pad([list(t) + [eos_id] for _, t in examples])
    src_mask = padding_mask(src, pad_id)
    tgt_mask = padding_mask(tgt_in, pad_id) & causal_mask(tgt_in.size(1))
    return Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, (tgt_out != pad_id).sum())
