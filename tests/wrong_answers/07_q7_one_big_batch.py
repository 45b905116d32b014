# Question 7 (3 points): find the bug: accumulate_gradients
# WRONG: the batches are merged into one and run at once: the right gradient, but no accumulation (the memory of all batches at once).
from transformer.training import make_batch

def accumulate_gradients(model, criterion, batches):
    "Backward over several batches so that .grad gets the gradient of the mean loss over all their target tokens."
    width_s = max(b.src.size(1) for b in batches)
    width_t = max(b.tgt_in.size(1) for b in batches)
    pad = lambda t, w: F.pad(t, (0, w - t.size(1)), value=0)
    src = torch.cat([pad(b.src, width_s) for b in batches])
    tgt_in = torch.cat([pad(b.tgt_in, width_t) for b in batches])
    tgt_out = torch.cat([pad(b.tgt_out, width_t) for b in batches])
    src_mask = (src != 0)[:, None, None, :]
    tgt_mask = (tgt_in != 0)[:, None, None, :] & torch.ones(width_t, width_t, dtype=torch.bool).tril()
    criterion(model(src, tgt_in, src_mask, tgt_mask), tgt_out).backward()
