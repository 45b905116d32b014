# Question 1 (3 points): corpus_bleu
# WRONG: clips the n-gram counts of the whole corpus against all references pooled, not sentence by sentence
def corpus_bleu(hypotheses, references):
    "BLEU-4 of tokenized sentences (tokens separated by spaces), one reference each, no smoothing: 0 to 100."
    c = sum(len(h.split()) for h in hypotheses)
    r = sum(len(t.split()) for t in references)
    log_precision = 0.0
    for n in range(1, 5):
        h_grams, r_grams = Counter(), Counter()
        for hyp, ref in zip(hypotheses, references):
            h, t = hyp.split(), ref.split()
            h_grams.update(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            r_grams.update(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
        matches = sum(min(k, r_grams[g]) for g, k in h_grams.items())
        if c == 0 or matches == 0:
            return 0.0
        log_precision += math.log(matches / sum(h_grams.values())) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(log_precision)
