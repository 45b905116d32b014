# Question 4 (1 point): the lowest label-smoothed loss
# WRONG: a model sure of the right token does not reach 0: the smoothed target is not one-hot.
answer_q4 = 0.0
