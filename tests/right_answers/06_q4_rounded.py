# Question 4 (2 points): share of the parameters in the embeddings
# RIGHT: the fraction rounded to 3 significant digits, as the question allows.
answer_q4 = 0.173
