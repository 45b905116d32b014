# Question 3 (2 points): the <unk> rate, and the leak
# WRONG: percentages, where the question asks for shares from 0 to 1 as unk_rate returns them
answer_q3 = (100 * unk_rate(Vocab.build(TRAIN, min_freq=2), TEST),
             100 * unk_rate(Vocab.build(TRAIN + TEST, min_freq=2), TEST))
