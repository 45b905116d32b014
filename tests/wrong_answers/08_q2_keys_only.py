# Question 2 (1 point): bytes of key/value cache with shared key/value heads
# WRONG: only the keys are counted, not the values.
answer_q2 = (2 * 64) * 4 * 6 * (40 + 45) * (16 * 5)
