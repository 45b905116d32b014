# Question 3 (2 points): what sacreBLEU's BLEU notices
# RIGHT: the letters as a set, in capitals
import sacrebleu
answer_q3 = {"E", "A"}
