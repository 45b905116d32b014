# Question 4 (2 points): what the tokenizer, the vocabulary and Pipeline guarantee
# RIGHT: the letters as a list, in capitals
answer_q4 = ["E", "A", "D"]
