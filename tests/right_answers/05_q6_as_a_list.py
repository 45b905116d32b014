# Question 6 (2 points): what padded positions do
# RIGHT: the same three statements, as a list in another order and case.
answer_q6 = ["E", "a", "c"]
