# Question 4 (2 points): what the merges depend on
# RIGHT: the letters as a list, in another order, upper case
answer_q4 = ["C", "A", "B"]
