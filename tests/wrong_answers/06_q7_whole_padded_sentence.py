# Question 7 (2 points): without the target padding mask
# WRONG: expects every position of the padded sentence to change; its real positions never see the later padding.
from transformer.attention import causal_mask
from transformer.model import Transformer, TransformerConfig

answer_q7 = 6
