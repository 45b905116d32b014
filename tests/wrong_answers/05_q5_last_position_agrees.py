# Question 5 (2 points): without the causal mask
# WRONG: the 1-layer answer: with 2 layers the last position reads layer 1's outputs, which saw the future.
answer_q5 = 1
