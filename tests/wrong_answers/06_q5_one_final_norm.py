# Question 5 (2 points): parameters Pre-LN adds
# WRONG: one final LayerNorm for the whole model, not one per stack (encoder and decoder).
answer_q5 = 2 * 512
