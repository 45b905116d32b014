# Question 6 (1 point): the update at which the learning rate has halved
# RIGHT: found by walking the schedule, with the formula written in plain Python.
lr = lambda s: 512 ** -0.5 * min(s ** -0.5, s * 4000 ** -1.5)
s = 4000
while lr(s) > lr(4000) / 2 * (1 + 1e-12):
    s += 1
answer_q6 = s
