# Question 7 (3 points): find the bug: accumulate_gradients
# RIGHT: each batch's mean is turned back into a sum of token losses; one backward of their total over all tokens.
def accumulate_gradients(model, criterion, batches):
    "Backward over several batches so that .grad gets the gradient of the mean loss over all their target tokens."
    sums, tokens = [], 0
    for b in batches:
        mean = criterion(model(b.src, b.tgt_in, b.src_mask, b.tgt_mask), b.tgt_out)
        sums.append(mean * b.n_tokens)
        tokens += b.n_tokens
    (torch.stack(sums).sum() / tokens).backward()
