# Question 6 (2 points): the gradient of a tied matrix
# WRONG: believes the two uses' gradients are averaged.
from transformer.model import Transformer, TransformerConfig

answer_q6 = "d"
