# Question 7 (2 points): which properties survive the bug
# WRONG: believes a broken encoding can no longer tell positions apart (it still can: the smallest distance is 3).
answer_q7 = "a"
