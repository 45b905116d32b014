# Question 4 (1 point): a value of the positional encoding
# WRONG: dimension 5 is odd, so it is a cosine; this takes the sine.
answer_q4 = math.sin(3 / 10000 ** (4 / 16))
