# Question 4 (2 points): allowed pairs in a padded target mask
# RIGHT: counted on the package's masks themselves (as a Python int).
from transformer.attention import causal_mask, padding_mask
tgt = torch.tensor([[1, 5, 6, 7, 0, 0], [1, 8, 0, 0, 0, 0], [1, 4, 4, 4, 4, 4]])
answer_q4 = int((padding_mask(tgt, 0) & causal_mask(6)).sum())
