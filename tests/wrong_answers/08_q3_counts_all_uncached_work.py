# Question 3 (1 point): decoder position evaluations saved by the cache
# WRONG: the uncached total N * n(n+1)/2, not what the cache saves (the cached run still evaluates N * n).
answer_q3 = 6 * 50 * 51 // 2
