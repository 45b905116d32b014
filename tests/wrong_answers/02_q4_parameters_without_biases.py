# Question 4 (2 points): parameters with full-width heads, d_model = 512, h = 8
# WRONG: the biases are forgotten.
answer_q4 = 4 * 512 * (8 * 512)
