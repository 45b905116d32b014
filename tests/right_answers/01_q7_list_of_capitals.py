# Question 7 (3 points): what attention ignores
# RIGHT: the letters as a list, upper case and in another order.
from transformer.attention import scaled_dot_product_attention
answer_q7 = ["E", "A", "C"]
