# Question 1 (1 point): the first four merges of Sennrich's words
# RIGHT: checked with the chapter's learn_bpe, as the question invites, and kept as lists
from transformer.subwords import learn_bpe
answer_q1 = [list(pair) for pair in learn_bpe(WORDS, 4)]
