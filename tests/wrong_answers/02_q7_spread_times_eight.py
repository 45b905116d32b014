# Question 7 (2 points): why split d_model across the heads
# WRONG: e taken as true: the scores' standard deviation grows as sqrt(d_k), a factor sqrt(8) = 2.8, not 8.
answer_q7 = "ace"
