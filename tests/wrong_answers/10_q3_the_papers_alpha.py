# Question 3 (1 point): the alpha validation chooses
# WRONG: the paper's value, taken without measuring
answer_q3 = 0.6
