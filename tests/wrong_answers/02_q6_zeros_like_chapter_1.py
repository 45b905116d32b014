# Question 6 (1 point): a query that may attend to nothing
# WRONG: chapter 1's zero output carried through the layer, forgetting that w_o adds its bias.
from transformer.attention import causal_mask, padding_mask
from transformer.multi_head import MultiHeadAttention
answer_q6 = "a"
