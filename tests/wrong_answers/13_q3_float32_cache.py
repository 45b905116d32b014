# Question 3 (2 points): the cache grouped-query attention saves
# WRONG: 4 bytes a number, chapter 13's float32, not the bfloat16 the question states
answer_q3 = (64 - 8) * 2 * 80 * 128 * 4 * 4 * 4096
