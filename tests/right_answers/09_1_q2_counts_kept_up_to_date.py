# Question 2 (4 points): learn_bpe
# RIGHT: pair counts kept up to date, word by word, instead of counted again; the chapter's merge_pair; lists
def learn_bpe(word_counts, n_merges):
    "Byte-pair merges learnt from {word: count}: a list of (left, right) pairs, in the order learnt."
    from transformer.subwords import merge_pair
    words = [list(word) for word in word_counts]
    counts = list(word_counts.values())
    order = sorted({c for word in words for c in word})
    pairs = Counter()
    for word, count in zip(words, counts):
        for pair in zip(word, word[1:]):
            pairs[pair] += count
    merges = []
    while len(merges) < n_merges:
        live = [p for p, c in pairs.items() if c > 0]
        if not live:
            break
        best = min(live, key=lambda p: (-pairs[p], order.index(p[0]), order.index(p[1])))
        merges.append([best[0], best[1]])
        if best[0] + best[1] not in order:
            order.append(best[0] + best[1])
        for k, (word, count) in enumerate(zip(words, counts)):
            if best not in zip(word, word[1:]):
                continue
            new = merge_pair(word, best)
            pairs.subtract({p: count * n for p, n in Counter(zip(word, word[1:])).items()})
            pairs.update({p: count * n for p, n in Counter(zip(new, new[1:])).items()})
            words[k] = new
    return merges
