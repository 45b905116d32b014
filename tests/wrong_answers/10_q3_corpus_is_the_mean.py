# Question 3 (2 points): what sacreBLEU's BLEU notices
# WRONG: takes a corpus score for the mean of its sentences' scores
import sacrebleu
answer_q3 = "ace"
