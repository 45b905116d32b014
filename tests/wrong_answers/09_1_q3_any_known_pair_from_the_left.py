# Question 3 (2 points): segment
# WRONG: joins the leftmost pair that is a merge, whichever was learnt first
def segment(word, merges):
    "A word -> its pieces: the merges applied in the order they were learnt."
    known = set(merges)
    symbols = list(word)
    joined = True
    while joined:
        joined = False
        for i in range(len(symbols) - 1):
            if (symbols[i], symbols[i + 1]) in known:
                symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
                joined = True
                break
    return symbols
