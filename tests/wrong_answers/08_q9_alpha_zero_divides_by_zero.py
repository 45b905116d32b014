# Question 9 (2 points): why alpha = 0 favours short outputs
# WRONG: with alpha = 0 the penalty is lp = 1, not 0 (b is false); (d) is true and left out.
answer_q9 = "ab"
