# Question 9 (2 points): why alpha = 0 favours short outputs
# RIGHT: the same letters as a list, in another order and case.
answer_q9 = ["D", "a"]
