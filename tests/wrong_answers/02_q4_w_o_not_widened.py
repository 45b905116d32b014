# Question 4 (2 points): parameters with full-width heads, d_model = 512, h = 8
# WRONG: W_Q, W_K, W_V widened, but W_O kept at 512 x 512: it must read all 4096 concatenated features.
answer_q4 = 3 * (512 * 4096 + 4096) + 512 * 512 + 512
