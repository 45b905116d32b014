# Question 7 (2 points): why split d_model across the heads
# WRONG: b taken as true: the number of attention weights is h n^2, whatever the width of a head.
answer_q7 = "abc"
