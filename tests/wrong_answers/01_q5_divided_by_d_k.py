# Question 5 (1 point): entropy of the weights with scaling, d_k = 512
# WRONG: scores divided by d_k instead of sqrt(d_k): nearly uniform weights.
torch.manual_seed(0)
d_k = 512
q = torch.randn(2000, 1, d_k)                                 # the same draws as in question 4
k = torch.randn(2000, 10, d_k)
w = (q @ k.transpose(-2, -1) / d_k).softmax(dim=-1)
answer_q5 = torch.special.entr(w).sum(dim=-1).mean().item()
