# Question 1 (3 points): corpus_bleu
# RIGHT: n-grams from zip, the product of the precisions, the penalty from the summed lengths
def corpus_bleu(hypotheses, references):
    "BLEU-4 of tokenized sentences (tokens separated by spaces), one reference each, no smoothing: 0 to 100."
    grams = lambda words, n: Counter(zip(*(words[i:] for i in range(n))))
    hyp_len = ref_len = 0
    product = 1.0
    pairs = [(h.split(), r.split()) for h, r in zip(hypotheses, references)]
    for n in (1, 2, 3, 4):
        match = sum(sum((grams(h, n) & grams(r, n)).values()) for h, r in pairs)
        total = sum(sum(grams(h, n).values()) for h, _ in pairs)
        if match == 0:
            return 0.0
        product *= match / total
    hyp_len, ref_len = sum(len(h) for h, _ in pairs), sum(len(r) for _, r in pairs)
    bp = min(1.0, math.exp(1 - ref_len / hyp_len))
    return 100 * bp * product ** 0.25
