# Question 2 (4 points): learn_bpe
# WRONG: keeps going when every word is one symbol: min() of no pairs raises
def learn_bpe(word_counts, n_merges):
    "Byte-pair merges learnt from {word: count}: a list of (left, right) pairs, in the order learnt."
    from transformer.subwords import merge_pair
    words = {tuple(word): count for word, count in word_counts.items()}
    entered = {c: i for i, c in enumerate(sorted({c for word in word_counts for c in word}))}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for symbols, count in words.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += count
        best = min(pairs, key=lambda p: (-pairs[p], entered[p[0]], entered[p[1]]))
        merges.append(best)
        entered.setdefault(best[0] + best[1], len(entered))
        words = {tuple(merge_pair(list(symbols), best)): count for symbols, count in words.items()}
    return merges
