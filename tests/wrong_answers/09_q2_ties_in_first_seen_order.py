# Question 2 (2 points): the ids the encoder reads
# WRONG: orders tokens seen equally often as they first occur in TRAIN ("a" before ".", "man" before "dog"),
# not as sorted() does
answer_q2 = [7, 9, 1, 6, 4, 3]
