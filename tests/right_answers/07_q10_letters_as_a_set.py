# Question 10 (2 points): what label smoothing does to perplexity
# RIGHT: the same letters, as a set in upper case.
answer_q10 = {"D", "A"}
