# Question 2 (4 points): learn_bpe
# WRONG: the right merges, but the words are kept as their symbols inside the caller's word_counts, which it rewrites
def learn_bpe(word_counts, n_merges):
    "Byte-pair merges learnt from {word: count}: a list of (left, right) pairs, in the order learnt."
    entered = {c: i for i, c in enumerate(sorted({c for word in word_counts for c in word}))}
    for word in list(word_counts):                      # each word as its symbols, in place
        word_counts[tuple(word)] = word_counts.pop(word)
    merges = []
    while len(merges) < n_merges:
        pairs = Counter()
        for symbols, count in word_counts.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += count
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], entered[p[0]], entered[p[1]]))
        merges.append(best)
        entered.setdefault(best[0] + best[1], len(entered))
        for symbols in list(word_counts):
            out, i = [], 0
            while i < len(symbols):
                if symbols[i:i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            word_counts[tuple(out)] = word_counts.pop(symbols)
    return merges
