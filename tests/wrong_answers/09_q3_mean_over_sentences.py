# Question 3 (2 points): the <unk> rate, and the leak
# WRONG: averages the two sentences' rates, so the short sentence weighs as much as the long one; unk_rate
# counts all of TEST's tokens together
def rate(vocab, token_lists):
    return sum(sum(t not in vocab for t in toks) / len(toks) for toks in token_lists) / len(token_lists)
answer_q3 = (rate(Vocab.build(TRAIN, min_freq=2), TEST), rate(Vocab.build(TRAIN + TEST, min_freq=2), TEST))
