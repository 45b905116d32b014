# Question 4 (1 point): length_penalty
# WRONG: ** binds tighter than /, so only the 6 is raised to alpha.
def length_penalty(length, alpha=0.6):
    "lp(Y) = ((5 + |Y|) / 6) ** alpha; beam search ranks hypotheses by log P(Y) / lp(Y)."
    return (5 + length) / 6 ** alpha
