# Question 4 (2 points): what the tokenizer, the vocabulary and Pipeline guarantee
# WRONG: takes <unk> for a token that vocab.tokens drops, like <pad> and <bos>
answer_q4 = "acde"
