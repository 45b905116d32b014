# Question 4 (2 points): entropy of the weights without scaling, d_k = 512
# WRONG: -(w * log w) gives 0 * -inf = NaN where a weight underflowed to exactly 0.
torch.manual_seed(0)
d_k = 512
q = torch.randn(2000, 1, d_k)                                 # 2000 draws of one query...
k = torch.randn(2000, 10, d_k)                                # ...and of ten keys, components N(0, 1)
w = (q @ k.transpose(-2, -1)).softmax(dim=-1)
answer_q4 = -(w * w.log()).sum(dim=-1).mean().item()
