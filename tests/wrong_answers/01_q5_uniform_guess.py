# Question 5 (1 point): entropy of the weights with scaling, d_k = 512
# WRONG: a prediction not checked by measuring: "with the scaling the weights are uniform", ln 10.
answer_q5 = math.log(10)
