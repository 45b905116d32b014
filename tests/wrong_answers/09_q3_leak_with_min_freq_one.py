# Question 3 (2 points): the <unk> rate, and the leak
# WRONG: builds the leaky vocabulary with min_freq=1, where the question keeps min_freq=2 for both
answer_q3 = (unk_rate(Vocab.build(TRAIN, min_freq=2), TEST), unk_rate(Vocab.build(TRAIN + TEST, min_freq=1), TEST))
