# Question 7 (3 points): what attention ignores
# WRONG: f taken as true and e as false: keys and values are pairs, and shuffling both together changes nothing.
from transformer.attention import scaled_dot_product_attention
answer_q7 = "acf"
