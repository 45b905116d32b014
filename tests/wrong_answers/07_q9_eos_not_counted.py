# Question 9 (2 points): the padding share of sorted batches
# WRONG: the rows of tgt_out are counted without their <eos>.
rows = [n for n in range(11, 31) for _ in range(2)]
batches = [sorted(rows)[i:i + 10] for i in range(0, 40, 10)]
answer_q9_one = 1 - sum(rows) / (len(rows) * max(rows))
answer_q9_sorted = 1 - sum(rows) / sum(len(b) * max(b) for b in batches)
