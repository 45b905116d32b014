# Question 1 (3 points): make_batch
# RIGHT: tensors preallocated with torch.full (dtype long) and filled row by row; masks from comparisons and tril.
from transformer.attention import causal_mask, padding_mask
from transformer.training import Batch

def make_batch(examples, pad_id, bos_id, eos_id):
    "Pad (src_ids, tgt_ids) pairs into a Batch: src, tgt_in = bos + tgt, tgt_out = tgt + eos, masks, n_tokens."
    n = len(examples)
    len_s = max(len(s) for s, _ in examples)
    len_t = max(len(t) for _, t in examples) + 1
    src = torch.full((n, len_s), pad_id, dtype=torch.long)
    tgt_in = torch.full((n, len_t), pad_id, dtype=torch.long)
    tgt_out = torch.full((n, len_t), pad_id, dtype=torch.long)
    for i, (s, t) in enumerate(examples):
        src[i, :len(s)] = torch.as_tensor(list(s), dtype=torch.long)
        tgt_in[i, :len(t) + 1] = torch.as_tensor([bos_id] + list(t), dtype=torch.long)
        tgt_out[i, :len(t) + 1] = torch.as_tensor(list(t) + [eos_id], dtype=torch.long)
    src_mask = (src != pad_id)[:, None, None, :]
    allowed = torch.ones(len_t, len_t, dtype=torch.bool).tril()
    tgt_mask = (tgt_in != pad_id)[:, None, None, :] & allowed
    return Batch(src, tgt_in, tgt_out, src_mask, tgt_mask, sum(len(t) + 1 for _, t in examples))
