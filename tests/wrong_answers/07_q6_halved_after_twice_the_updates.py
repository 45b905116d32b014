# Question 6 (1 point): the update at which the learning rate has halved
# WRONG: the rate decays as step^-0.5, not 1/step: doubling the updates divides it by sqrt(2) only.
answer_q6 = 2 * 4000
