# Question 7 (2 points): why split d_model across the heads
# WRONG: d taken as true: the 1/sqrt(d_k) scaling keeps the scores' spread the same at every width.
answer_q7 = "acd"
