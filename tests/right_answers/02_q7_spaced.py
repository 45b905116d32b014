# Question 7 (2 points): why split d_model across the heads
# RIGHT: letters with spaces and commas, in another order.
answer_q7 = "c, a"
