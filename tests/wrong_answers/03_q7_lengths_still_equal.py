# Question 7 (2 points): which properties survive the bug
# WRONG: assumes every position vector still has length sqrt(d_model/2), as if sin^2 + cos^2 = 1 held for a pair
# whose sine and cosine have different frequencies.
answer_q7 = "abc"
