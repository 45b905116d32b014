# Question 2 (2 points): the ids the encoder reads
# WRONG: the right ids, as a tuple: with_eos returns a list, and the question asks for one
answer_q2 = (7, 8, 1, 6, 5, 3)
