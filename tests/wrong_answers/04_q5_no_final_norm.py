# Question 5 (1 point): LayerNorms in a Pre-LN encoder
# WRONG: the final LayerNorm of the Pre-LN stack is forgotten.
answer_q5 = 6 * 2
