# Question 4 (2 points): parameters with full-width heads, d_model = 512, h = 8
# RIGHT: the formula 4 h d^2 + 3 h d + d, computed in floating point.
d, h = 512.0, 8.0
answer_q4 = 4 * h * d ** 2 + 3 * h * d + d
