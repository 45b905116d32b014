# Question 4 (2 points): share of the parameters in the embeddings
# WRONG: counts the tied output projection as a third table, in the embeddings and in the total.
d, d_ff, N = 512, 2048, 6
attn, ffn = 4 * (d * d + d), 2 * d * d_ff + d_ff + d
layers = N * (attn + ffn + 2 * 2 * d) + N * (2 * attn + ffn + 3 * 2 * d)
tables = (8000 + 10000 + 10000) * d
answer_q4 = tables / (tables + layers)
