# Question 5 (3 points): choose_alpha
# WRONG: max keeps the tied alpha listed first, which is the smallest only when the alphas come in ascending order
def choose_alpha(table, alphas):
    "(the alpha with the best corpus BLEU on `table`, {alpha: BLEU}); the smallest alpha on a tie."
    def best(hyps, alpha):
        return max(hyps, key=lambda h: h[1] / length_penalty(len(h[0].split()) + 1, alpha))[0]
    references = [ref for _, ref in table]
    bleu = {}
    for alpha in alphas:
        picks = [best(hyps, alpha) for hyps, _ in table]
        bleu[alpha] = sacrebleu.corpus_bleu(picks, [references]).score
    return max(alphas, key=lambda a: bleu[a]), bleu
