# Question 3 (2 points): segment
# WRONG: each merge joins only the first occurrence of its pair ("abab" stays "ab", "a", "b")
def segment(word, merges):
    "A word -> its pieces: the merges applied in the order they were learnt."
    symbols = list(word)
    for left, right in merges:
        for i in range(len(symbols) - 1):
            if symbols[i] == left and symbols[i + 1] == right:
                symbols[i:i + 2] = [left + right]
                break
    return symbols
