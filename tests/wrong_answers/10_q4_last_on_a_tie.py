# Question 4 (2 points): best_hypothesis
# WRONG: >= keeps the last of the tied hypotheses, not the first
def best_hypothesis(hypotheses, alpha):
    "The text of the best (text, log P) pair by log P / lp(words + 1, alpha); the first one on a tie."
    best, best_score = None, -math.inf
    for text, logp in hypotheses:
        score = logp / length_penalty(len(text.split()) + 1, alpha)
        if score >= best_score:
            best, best_score = text, score
    return best
