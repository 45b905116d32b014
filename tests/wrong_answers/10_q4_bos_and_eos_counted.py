# Question 4 (2 points): best_hypothesis
# WRONG: |Y| counts <bos> as well as <eos>: the words plus two
def best_hypothesis(hypotheses, alpha):
    "The text of the best (text, log P) pair by log P / lp(words + 1, alpha); the first one on a tie."
    return max(hypotheses, key=lambda h: h[1] / length_penalty(len(h[0].split()) + 2, alpha))[0]
