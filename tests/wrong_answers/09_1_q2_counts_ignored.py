# Question 2 (4 points): learn_bpe
# WRONG: each word counted once, as if every word occurred once: its count is never used
def learn_bpe(word_counts, n_merges):
    "Byte-pair merges learnt from {word: count}: a list of (left, right) pairs, in the order learnt."
    words = [tuple(word) for word in word_counts]
    entered = {c: i for i, c in enumerate(sorted({c for word in word_counts for c in word}))}
    merges = []
    while len(merges) < n_merges:
        pairs = Counter(pair for symbols in words for pair in zip(symbols, symbols[1:]))
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], entered[p[0]], entered[p[1]]))
        merges.append(best)
        entered.setdefault(best[0] + best[1], len(entered))
        new_words = []
        for symbols in words:
            out, i = [], 0
            while i < len(symbols):
                if symbols[i:i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            new_words.append(tuple(out))
        words = new_words
    return merges
