# Question 4 (2 points): RMS of the encoding after dropout
# WRONG: scales the RMS by 1/(1-p), as if every entry were kept and scaled up.
answer_q4 = math.sqrt(1 / 2) / (1 - 0.1)
