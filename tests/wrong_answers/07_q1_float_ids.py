# Question 1 (3 points): make_batch
# WRONG: the id tensors are built with torch.zeros and filled in place, so they are float32, not torch.long (nn.Embedding refuses them).
from transformer.attention import causal_mask, padding_mask
from transformer.training import Batch

def make_batch(examples, pad_id, bos_id, eos_id):
    "Pad (src_ids, tgt_ids) pairs into a Batch: src, tgt_in = bos + tgt, tgt_out = tgt + eos, masks, n_tokens."
    def pad(rows):
        out = torch.zeros(len(rows), max(len(r) for r in rows)) + pad_id
        for i, r in enumerate(rows):
            out[i, :len(r)] = torch.tensor(r)
        return out
    src = pad([list(s) for s, _ in examples])
    tgt_in = pad([[bos_id] + list(t) for _, t in examples])
    tgt_out = pad([list(t) + [eos_id] for _, t in examples])
    src_mask = padding_mask(src, pad_id)
    tgt_mask = padding_mask(tgt_in, pad_id) & causal_mask(tgt_in.size(1))
    return Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, int((tgt_out != pad_id).sum()))
