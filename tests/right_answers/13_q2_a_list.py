# Question 2 (2 points): RoPE's relative-position property
# RIGHT: the letters as a list
answer_q2 = ["a", "c", "d", "f"]
