# Question 5 (2 points): parameters Pre-LN adds
# WRONG: Pre-LN only moves each sublayer's LayerNorm; the final LayerNorm of each stack is forgotten.
answer_q5 = 0
