# Question 6 (1 point): the alpha validation chooses
# WRONG: the paper's value, taken without measuring
answer_q6 = 0.6
