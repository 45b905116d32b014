# Question 4 (2 points): what the tokenizer, the vocabulary and Pipeline guarantee
# WRONG: believes ids and back give every token again, forgetting the words the vocabulary lacks
answer_q4 = "abde"
