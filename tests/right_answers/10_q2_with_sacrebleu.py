# Question 2 (1 point): BLEU of one sentence by hand
# RIGHT: checked with sacreBLEU on the given tokens
import sacrebleu
bleu = sacrebleu.metrics.BLEU(tokenize="none", smooth_method="none", force=True)
answer_q2 = bleu.sentence_score("a man rides a bike on the street", ["a man rides a bike down the street ."]).score
