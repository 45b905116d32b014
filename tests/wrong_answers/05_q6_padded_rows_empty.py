# Question 6 (2 points): what padded positions do
# WRONG: takes the padded rows to be empty and their outputs to be harmful, as if the padding mask blocked queries.
answer_q6 = "bcd"
