# Question 10 (2 points): what label smoothing does to perplexity
# WRONG: (c) is false: <pad> gets no target probability at all (q(<pad>) = 0); (d) is true.
answer_q10 = "ac"
