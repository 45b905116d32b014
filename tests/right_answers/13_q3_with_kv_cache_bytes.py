# Question 3 (2 points): the cache grouped-query attention saves
# RIGHT: chapter 13's kv_cache_bytes, with the model's sizes, numpy integers for the batch
import numpy as np
def kv_cache_bytes(tokens, kv_heads, layers=6, d_k=64, bytes_per_number=4):
    return 2 * layers * kv_heads * d_k * bytes_per_number * tokens
tokens = np.int64(4) * np.int64(4096)
answer_q3 = kv_cache_bytes(tokens, 64, 80, 128, 2) - kv_cache_bytes(tokens, 8, 80, 128, 2)
