# Question 7 (3 points): find the bug: accumulate_gradients
# WRONG: the division is dropped: the gradient is the sum of the batches' mean losses, len(batches) times too large on average.
def accumulate_gradients(model, criterion, batches):
    "Backward over several batches so that .grad gets the gradient of the mean loss over all their target tokens."
    for b in batches:
        logits = model(b.src, b.tgt_in, b.src_mask, b.tgt_mask)
        criterion(logits, b.tgt_out).backward()
