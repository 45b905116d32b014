# Question 5 (1 point): standard deviation of q·k for d_k = 64
# WRONG: the variance (64), not the standard deviation.
answer_q5 = 64
