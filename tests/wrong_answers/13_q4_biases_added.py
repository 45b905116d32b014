# Question 4 (1 point): SwiGLU's width for the paper's parameter count
# WRONG: gives SwiGLU biases, which chapter 13's has not
ffn = 2 * 512 * 2048 + 2048 + 512
answer_q4 = (ffn - 512) // (3 * 512 + 2)
