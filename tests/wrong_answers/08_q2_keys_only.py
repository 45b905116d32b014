# Question 2 (1 point): bytes of key/value cache per target token
# WRONG: only the keys are counted, not the values.
answer_q2 = 512 * 6 * 4
