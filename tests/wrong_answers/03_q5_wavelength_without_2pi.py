# Question 5 (2 points): dimensions slower than a 50-token sentence
# WRONG: takes the wavelength of pair i as 1 / omega_i = 10000^(2i/d_model), forgetting the 2 pi of one period.
answer_q5 = 2 * sum(10000 ** (2 * i / 512) > 50 for i in range(256))
