# Question 5 (2 points): dimensions slower than a 50-token sentence
# WRONG: counts the pairs (one frequency each), not the dimensions.
answer_q5 = sum(2 * math.pi * 10000 ** (2 * i / 512) > 50 for i in range(256))
