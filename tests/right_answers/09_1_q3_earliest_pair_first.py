# Question 3 (2 points): segment
# RIGHT: as the chapter's apply_bpe: the neighbouring pair learnt earliest, again and again, all its occurrences
def segment(word, merges):
    "A word -> its pieces: the merges applied in the order they were learnt."
    from transformer.subwords import merge_pair
    rank = {tuple(pair): r for r, pair in enumerate(merges)}
    symbols = list(word)
    while len(symbols) > 1:
        pair = min(zip(symbols, symbols[1:]), key=lambda p: rank.get(p, len(rank)))
        if pair not in rank:
            break
        symbols = merge_pair(symbols, pair)
    return symbols
