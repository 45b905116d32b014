# Question 4 (2 points): what the tokenizer, the vocabulary and Pipeline guarantee
# WRONG: believes isinstance checks what the methods take, as a type checker would
answer_q4 = "ad"
