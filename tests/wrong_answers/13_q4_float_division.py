# Question 4 (1 point): SwiGLU's width for the paper's parameter count
# WRONG: divides with /, a float, where a width (what nn.Linear takes) is an int: the largest one that fits
ffn = 2 * 512 * 2048 + 2048 + 512
answer_q4 = ffn / (3 * 512)
