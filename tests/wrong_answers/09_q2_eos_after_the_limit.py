# Question 2 (2 points): the ids the encoder reads
# WRONG: cuts the sentence to 6 ids and then adds <eos>: 7 ids, one more than limit allows
answer_q2 = [7, 8, 1, 6, 5, 1, 3]
