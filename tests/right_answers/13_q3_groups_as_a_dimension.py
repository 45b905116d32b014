# Question 3 (2 points): grouped_query_attention
# RIGHT: the query heads viewed as (g, h/g), each group against its key/value head by broadcasting
def grouped_query_attention(q, k, v, mask=None):
    "q (batch, h, len_q, d_k); k, v (batch, g, len_k, d_k), g dividing h -> (batch, h, len_q, d_k)."
    b, h, len_q, d_k = q.shape
    g = k.size(1)
    grouped = q.view(b, g, h // g, len_q, d_k)                            # (batch, g, h/g, len_q, d_k)
    m = None if mask is None else mask.unsqueeze(1)                       # one more dimension for the groups
    out = scaled_dot_product_attention(grouped, k.unsqueeze(2), v.unsqueeze(2), m)
    return out.reshape(b, h, len_q, d_k)
