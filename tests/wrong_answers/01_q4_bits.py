# Question 4 (2 points): entropy of the weights without scaling, d_k = 512
# WRONG: measured in bits (log2), not in nats.
torch.manual_seed(0)
d_k = 512
q = torch.randn(2000, 1, d_k)                                 # 2000 draws of one query...
k = torch.randn(2000, 10, d_k)                                # ...and of ten keys, components N(0, 1)
w = (q @ k.transpose(-2, -1)).softmax(dim=-1)
answer_q4 = -torch.where(w > 0, w * torch.log2(w), torch.zeros_like(w)).sum(dim=-1).mean().item()
