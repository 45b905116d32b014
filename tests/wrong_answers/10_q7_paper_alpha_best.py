# Question 7 (2 points): what the choice on validation tells
# WRONG: believes the paper's alpha wins here too
answer_q7 = "abce"
