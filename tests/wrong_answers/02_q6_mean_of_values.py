# Question 6 (1 point): a query that may attend to nothing
# WRONG: the -1e9 convention's uniform weights (the mean of the values), which the package does not use.
from transformer.attention import causal_mask, padding_mask
from transformer.multi_head import MultiHeadAttention
answer_q6 = "c"
