# Question 8 (2 points): the narrowest beam that finds the best output
# WRONG: the best output starts with the 4th most likely first token (D); a beam of 3 drops it at the first step.
answer_q8 = 3
