# Question 6 (1 point): a query that may attend to nothing
# RIGHT: measured on the cell's layer: the option letter in brackets, upper case.
from transformer.attention import causal_mask, padding_mask
from transformer.multi_head import MultiHeadAttention
torch.manual_seed(0)
mha = MultiHeadAttention(8, 2)
x = torch.randn(1, 4, 8)                                          # (batch, len, d_model)
mask = padding_mask(torch.tensor([[0, 5, 6, 7]]), 0) & causal_mask(4)   # query 0 may see only padding
with torch.no_grad():
    row = mha(x, x, x, mask)[0, 0]
answer_q6 = "(B)" if torch.allclose(row, mha.w_o.bias) else "(A)"
