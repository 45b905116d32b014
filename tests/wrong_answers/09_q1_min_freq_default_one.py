# Question 1 (2 points): build_vocab
# WRONG: min_freq defaults to 1, not to the 2 the question states
def build_vocab(token_lists, min_freq=1):
    "Token strings by id: the special tokens, then the tokens seen at least min_freq times, most frequent first."
    counts = Counter(token for tokens in token_lists for token in tokens)
    kept = [t for t, c in counts.items() if c >= min_freq and t not in SPECIALS]
    return SPECIALS + sorted(kept, key=lambda t: (-counts[t], t))
