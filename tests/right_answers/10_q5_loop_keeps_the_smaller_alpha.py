# Question 5 (3 points): choose_alpha
# RIGHT: one loop over the alphas in any order, a tie settled by comparing the alphas themselves
def choose_alpha(table, alphas):
    "(the alpha with the best corpus BLEU on `table`, {alpha: BLEU}); the smallest alpha on a tie."
    references = [ref for _, ref in table]
    bleu, chosen = {}, None
    for alpha in alphas:
        picks = []
        for hyps, _ in table:
            scores = [logp / ((5 + len(text.split()) + 1) / 6) ** alpha for text, logp in hyps]
            picks.append(hyps[scores.index(max(scores))][0])
        bleu[alpha] = sacrebleu.corpus_bleu(picks, [references]).score
        if chosen is None or bleu[alpha] > bleu[chosen] or (bleu[alpha] == bleu[chosen] and alpha < chosen):
            chosen = alpha
    return chosen, bleu
