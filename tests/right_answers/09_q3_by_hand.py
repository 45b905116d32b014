# Question 3 (2 points): the <unk> rate, and the leak
# RIGHT: counted by hand, as a list: 6 of 17 tokens, then 3 of 17
answer_q3 = [6 / 17, 3 / 17]
