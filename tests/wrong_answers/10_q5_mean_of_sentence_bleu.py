# Question 5 (3 points): choose_alpha
# WRONG: scores each sentence alone and averages, instead of the corpus BLEU
def choose_alpha(table, alphas):
    "(the alpha with the best corpus BLEU on `table`, {alpha: BLEU}); the smallest alpha on a tie."
    def best(hyps, alpha):                                        # question 4's rule; max keeps the first on a tie
        return max(hyps, key=lambda h: h[1] / length_penalty(len(h[0].split()) + 1, alpha))[0]
    references = [ref for _, ref in table]
    bleu = {}
    for alpha in alphas:
        picks = [best(hyps, alpha) for hyps, _ in table]
        bleu[alpha] = sum(sacrebleu.sentence_bleu(p, [r]).score for p, r in zip(picks, references)) / len(picks)
    return min(alphas, key=lambda a: (-bleu[a], a)), bleu
