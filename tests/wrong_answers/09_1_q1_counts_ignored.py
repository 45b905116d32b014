# Question 1 (1 point): the first four merges of Sennrich's words
# WRONG: pairs counted once per word, whatever the word's count: ("l", "o") comes second, then ("es", "t")
answer_q1 = [("e", "s"), ("l", "o"), ("es", "t"), ("lo", "w")]
