# Question 3 (2 points): parameters after changing h and d_ff
# WRONG: believes each head brings its own d_model x d_model projections, so twice the heads means twice the attention parameters.
def layer_params(d, d_ff, attentions, heads_factor):
    return attentions * heads_factor * 4 * (d * d + d) + (d * d_ff + d_ff) + (d_ff * d + d) + (attentions + 1) * 2 * d
answer_q3 = 37000 * 512 + 6 * layer_params(512, 1024, 1, 2) + 6 * layer_params(512, 1024, 2, 2)
