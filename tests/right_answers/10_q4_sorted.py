# Question 4 (2 points): best_hypothesis
# RIGHT: a stable sort by score, best first: the first of the tied ones stays first
def best_hypothesis(hypotheses, alpha):
    "The text of the best (text, log P) pair by log P / lp(words + 1, alpha); the first one on a tie."
    ranked = sorted(hypotheses, key=lambda h: -h[1] / ((5 + len(h[0].split()) + 1) / 6) ** alpha)
    return ranked[0][0]
