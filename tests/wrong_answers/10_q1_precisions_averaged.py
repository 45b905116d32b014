# Question 1 (3 points): corpus_bleu
# WRONG: the arithmetic mean of the four precisions instead of the geometric mean
def corpus_bleu(hypotheses, references):
    "BLEU-4 of tokenized sentences (tokens separated by spaces), one reference each, no smoothing: 0 to 100."
    matches, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        h, t = hyp.split(), ref.split()
        c, r = c + len(h), r + len(t)
        for n in range(1, 5):
            h_grams = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            r_grams = Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
            matches[n - 1] += sum(min(k, r_grams[g]) for g, k in h_grams.items())   # clipped
            totals[n - 1] += max(len(h) - n + 1, 0)
    if c == 0 or min(matches) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * sum(m / t for m, t in zip(matches, totals)) / 4
