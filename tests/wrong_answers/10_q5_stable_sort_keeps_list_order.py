# Question 5 (3 points): choose_alpha
# WRONG: a stable sort by BLEU alone breaks a tie by the order the alphas are listed in, not by the smallest alpha
def choose_alpha(table, alphas):
    "(the alpha with the best corpus BLEU on `table`, {alpha: BLEU}); the smallest alpha on a tie."
    def best(hyps, alpha):                                        # question 4's rule; max keeps the first on a tie
        return max(hyps, key=lambda h: h[1] / length_penalty(len(h[0].split()) + 1, alpha))[0]
    references = [ref for _, ref in table]
    bleu = {}
    for alpha in alphas:
        picks = [best(hyps, alpha) for hyps, _ in table]
        bleu[alpha] = sacrebleu.corpus_bleu(picks, [references]).score
    return sorted(alphas, key=lambda a: -bleu[a])[0], bleu
