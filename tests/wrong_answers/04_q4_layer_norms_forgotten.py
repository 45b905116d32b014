# Question 4 (2 points): parameters of an encoder layer with h = 16 and d_ff = 1024
# WRONG: the two LayerNorms (a gain and a bias of d_model each) are left out.
answer_q4 = 4 * (512 * 512 + 512) + (512 * 1024 + 1024) + (1024 * 512 + 512)
