# Question 3 (2 points): the cache grouped-query attention saves
# WRONG: the size of the grouped cache (8 heads), not what it saves over 64
answer_q3 = 8 * 2 * 80 * 128 * 2 * 4 * 4096
