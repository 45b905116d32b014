# Question 3 (2 points): grouped_query_attention
# WRONG: .repeat tiles the key/value heads (0, 1, 0, 1, ...) instead of giving each one neighbouring query heads
def grouped_query_attention(q, k, v, mask=None):
    "q (batch, h, len_q, d_k); k, v (batch, g, len_k, d_k), g dividing h -> (batch, h, len_q, d_k)."
    repeat = q.size(1) // k.size(1)
    return scaled_dot_product_attention(q, k.repeat(1, repeat, 1, 1), v.repeat(1, repeat, 1, 1), mask)
