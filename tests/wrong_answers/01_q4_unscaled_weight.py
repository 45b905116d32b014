# Question 4 (1 point): attention weight in a 3-token example
# WRONG: a numeric answer computed without the 1/sqrt(d_k) scaling.
q = torch.tensor([1.0, 0.0, 1.0, 0.0])
K = torch.tensor([[1.0, 0.0, 1.0, 0.0],
                  [0.0, 1.0, 0.0, 1.0],
                  [1.0, 1.0, 0.0, 0.0]])
answer_q4 = torch.softmax(K @ q, dim=-1)[2].item()
