# Question 2 (2 points): the ids the encoder reads
# WRONG: gives a word the vocabulary lacks id 0, <pad>'s, instead of <unk>'s 1
answer_q2 = [7, 8, 0, 6, 5, 3]
