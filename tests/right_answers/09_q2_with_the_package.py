# Question 2 (2 points): the ids the encoder reads
# RIGHT: checked with chapter 9's Vocab and with_eos
vocab = Vocab.build(TRAIN, min_freq=2)
answer_q2 = with_eos(vocab.ids("the dog rides on a bike .".split()), limit=6)
