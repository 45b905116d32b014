# Question 5 (2 points): symmetries of multi-head attention
# WRONG: g taken as true: W_O's bias is added once and is not doubled with the values.
from transformer.multi_head import MultiHeadAttention
answer_q5 = "adfg"
