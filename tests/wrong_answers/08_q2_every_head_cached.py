# Question 2 (1 point): bytes of key/value cache with shared key/value heads
# WRONG: the sharing is ignored: every one of the 16 query heads is given its own keys and values (d_model numbers).
answer_q2 = 2 * 1024 * 4 * 6 * (40 + 45) * (16 * 5)
