# Question 3 (2 points): parameters after changing h and d_ff
# WRONG: the tied output projection is counted a second time.
def layer_params(d, d_ff, attentions):
    return attentions * 4 * (d * d + d) + (d * d_ff + d_ff) + (d_ff * d + d) + (attentions + 1) * 2 * d
answer_q3 = 2 * 37000 * 512 + 6 * layer_params(512, 1024, 1) + 6 * layer_params(512, 1024, 2)
