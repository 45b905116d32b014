# Question 7 (3 points): what attention ignores
# WRONG: b taken as true, as if attention looked at a set of keys: a duplicated pair gets two shares of the weight.
from transformer.attention import scaled_dot_product_attention
answer_q7 = "abce"
