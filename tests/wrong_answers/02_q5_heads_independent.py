# Question 5 (2 points): symmetries of multi-head attention
# WRONG: b taken as true ("the heads are independent, so their order is free"), forgetting W_O reads them by position.
from transformer.multi_head import MultiHeadAttention
answer_q5 = "abdf"
