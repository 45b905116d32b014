# Question 8 (2 points): the narrowest beam that finds the best output
# RIGHT: worked out by hand: every first token ends at once, so the best output is the best first-token x <eos>
# product (D: 0.2 x 0.95), and a beam keeps D only if it keeps the 4 most likely first tokens.
first = {"A": 0.30, "B": 0.27, "C": 0.23, "D": 0.20}
end = {"A": 0.60, "B": 0.62, "C": 0.65, "D": 0.95}
best = max(first, key=lambda t: first[t] * end[t])
answer_q8 = sorted(first, key=first.get, reverse=True).index(best) + 1
