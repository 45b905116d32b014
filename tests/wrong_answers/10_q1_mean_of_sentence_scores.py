# Question 1 (3 points): corpus_bleu
# WRONG: the mean of the sentences' BLEU scores, not the BLEU of the corpus's summed counts
def corpus_bleu(hypotheses, references):
    "BLEU-4 of tokenized sentences (tokens separated by spaces), one reference each, no smoothing: 0 to 100."
    def sentence(hyp, ref):
        h, t = hyp.split(), ref.split()
        logs = []
        for n in range(1, 5):
            h_grams = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            r_grams = Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
            match = sum(min(k, r_grams[g]) for g, k in h_grams.items())
            if match == 0:
                return 0.0
            logs.append(math.log(match / sum(h_grams.values())))
        bp = 1.0 if len(h) >= len(t) else math.exp(1 - len(t) / len(h))
        return 100 * bp * math.exp(sum(logs) / 4)
    return sum(sentence(h, r) for h, r in zip(hypotheses, references)) / len(hypotheses)
