# Question 5 (2 points): symmetries of multi-head attention
# RIGHT: a set of letters, upper case.
from transformer.multi_head import MultiHeadAttention
answer_q5 = {"F", "D", "A"}
