# Question 7 (3 points): find the bug: accumulate_gradients
# WRONG: the right weights, but it clears the gradients first: whatever .grad held before the call is lost,
# where backward() adds to it.
def accumulate_gradients(model, criterion, batches):
    "Backward over several batches so that .grad gets the gradient of the mean loss over all their target tokens."
    model.zero_grad()
    total = sum(b.n_tokens for b in batches)
    for b in batches:
        logits = model(b.src, b.tgt_in, b.src_mask, b.tgt_mask)
        (criterion(logits, b.tgt_out) * b.n_tokens / total).backward()
