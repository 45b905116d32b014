# Question 4 (2 points): what the merges depend on
# WRONG: (e) judged true: one word with count 1 can break a tie
answer_q4 = "abce"
