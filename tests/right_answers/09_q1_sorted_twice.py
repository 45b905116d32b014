# Question 1 (2 points): build_vocab
# RIGHT: alphabetical first, then a stable sort by count
def build_vocab(token_lists, min_freq=2):
    "Token strings by id: the special tokens, then the tokens seen at least min_freq times, most frequent first."
    counts = {}
    for tokens in token_lists:
        for t in tokens:
            counts[t] = counts.get(t, 0) + 1
    kept = sorted(t for t in counts if counts[t] >= min_freq and t not in SPECIALS)
    kept.sort(key=lambda t: counts[t], reverse=True)
    return list(SPECIALS) + kept
