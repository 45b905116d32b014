# Question 4 (1 point): parameters of one multi-head attention layer
# WRONG: the biases are forgotten.
answer_q4 = 4 * 512 * 512
