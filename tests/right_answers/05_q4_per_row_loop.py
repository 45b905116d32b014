# Question 4 (2 points): allowed pairs in a padded target mask
# RIGHT: explicit loops over sentences, queries and keys, in plain Python.
rows = [[1, 5, 6, 7, 0, 0], [1, 8, 0, 0, 0, 0], [1, 4, 4, 4, 4, 4]]
answer_q4 = sum(1 for row in rows for i in range(6) for j in range(6) if j <= i and row[j] != 0)
