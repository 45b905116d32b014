# Question 1 (2 points): build_vocab
# WRONG: the right vocabulary, but it sorts the caller's sentences in place while counting
def build_vocab(token_lists, min_freq=2):
    "Token strings by id: the special tokens, then the tokens seen at least min_freq times, most frequent first."
    counts = Counter()
    for tokens in token_lists:
        tokens.sort()
        counts.update(tokens)
    kept = [t for t, c in counts.items() if c >= min_freq and t not in SPECIALS]
    return SPECIALS + sorted(kept, key=lambda t: (-counts[t], t))
