# Question 3 (2 points): the cache grouped-query attention saves
# WRONG: counts the cached keys and forgets the values
answer_q3 = (64 - 8) * 80 * 128 * 2 * 4 * 4096
