# Question 4 (2 points): parameters of an encoder layer with h = 16 and d_ff = 1024
# WRONG: believes twice the heads means twice the attention projections.
answer_q4 = 2 * 4 * (512 * 512 + 512) + (512 * 1024 + 1024) + (1024 * 512 + 512) + 2 * (2 * 512)
