# Question 6 (1 point): the peak learning rate of the base model
# WRONG: the d_model^-0.5 factor is left out.
answer_q6 = 4000 ** -0.5
