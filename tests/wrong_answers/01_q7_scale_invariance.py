# Question 7 (3 points): what attention ignores
# WRONG: g taken as true (the softmax is invariant to shifts of the scores, not to their scale).
from transformer.attention import scaled_dot_product_attention
answer_q7 = "aceg"
