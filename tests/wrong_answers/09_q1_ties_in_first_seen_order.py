# Question 1 (2 points): build_vocab
# WRONG: Counter.most_common keeps tokens seen equally often in the order they were first seen, not sorted
def build_vocab(token_lists, min_freq=2):
    "Token strings by id: the special tokens, then the tokens seen at least min_freq times, most frequent first."
    counts = Counter(token for tokens in token_lists for token in tokens)
    return SPECIALS + [t for t, c in counts.most_common() if c >= min_freq and t not in SPECIALS]
