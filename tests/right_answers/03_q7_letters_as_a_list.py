# Question 7 (2 points): which properties survive the bug
# RIGHT: the letters as a list, upper case, in another order.
answer_q7 = ["C", "A"]
