# Question 4 (2 points): allowed pairs in a padded target mask
# WRONG: counts the padded query rows as empty; the padding mask blocks padded keys, not padded queries.
answer_q4 = 4 * 5 // 2 + 2 * 3 // 2 + 6 * 7 // 2
