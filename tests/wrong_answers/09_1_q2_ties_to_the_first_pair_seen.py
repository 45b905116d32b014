# Question 2 (4 points): learn_bpe
# WRONG: max() over the counts: a tie goes to the pair counted first, wherever its symbols stand in the vocabulary
def learn_bpe(word_counts, n_merges):
    "Byte-pair merges learnt from {word: count}: a list of (left, right) pairs, in the order learnt."
    from transformer.subwords import merge_pair
    words = {tuple(word): count for word, count in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for symbols, count in words.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += count
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        merges.append(best)
        words = {tuple(merge_pair(list(symbols), best)): count for symbols, count in words.items()}
    return merges
