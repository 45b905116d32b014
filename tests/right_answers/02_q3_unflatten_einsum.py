# Question 3 (4 points): MultiHeadAttention
# RIGHT: heads split with unflatten, laid out by einsum, merged with flatten.
from transformer.attention import scaled_dot_product_attention

class MultiHeadAttention(nn.Module):
    "h attention heads of width d_k = d_model / h, concatenated and mixed by W_O."
    def __init__(self, d_model, h):
        super().__init__()
        self.h = h
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, query, key, value, mask=None):
        def split(x):                                         # (batch, len, d_model) -> (batch, h, len, d_k)
            return torch.einsum("blhd->bhld", x.unflatten(-1, (self.h, -1)))
        heads = scaled_dot_product_attention(split(self.w_q(query)), split(self.w_k(key)), split(self.w_v(value)), mask)
        return self.w_o(torch.einsum("bhld->blhd", heads).flatten(-2))
