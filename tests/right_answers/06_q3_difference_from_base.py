# Question 3 (2 points): parameters after changing h and d_ff
# RIGHT: the chapter's base total minus what the 12 feed-forward blocks lose (h changes nothing).
base = 63_082_496
ffn = lambda d, d_ff: d * d_ff + d_ff + d_ff * d + d
answer_q3 = base - 12 * (ffn(512, 2048) - ffn(512, 1024))
