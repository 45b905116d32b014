# Question 7 (3 points): find the bug: accumulate_gradients
# WRONG: the bug left in: the batches' means are averaged, so a token of a small batch counts more than one of a large batch.
def accumulate_gradients(model, criterion, batches):
    "Backward over several batches so that .grad gets the gradient of the mean loss over all their target tokens."
    for b in batches:
        logits = model(b.src, b.tgt_in, b.src_mask, b.tgt_mask)
        loss = criterion(logits, b.tgt_out)
        (loss / len(batches)).backward()
