# Question 4 (2 points): RMS of the encoding after dropout
# WRONG: since dropout keeps the expected value, assumes it keeps the RMS too (the RMS of PE, 1/sqrt(2)).
answer_q4 = math.sqrt(1 / 2)
