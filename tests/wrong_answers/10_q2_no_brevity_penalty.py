# Question 2 (1 point): BLEU of one sentence by hand
# WRONG: the four precisions are right, the brevity penalty is forgotten
answer_q2 = 100 * (7 / 8 * 5 / 7 * 3 / 6 * 2 / 5) ** 0.25
