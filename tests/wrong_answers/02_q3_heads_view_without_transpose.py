# Question 3 (4 points): MultiHeadAttention
# WRONG: heads split with a view to (batch, h, len, d_k) and merged back with a view, no transposes.
from transformer.attention import scaled_dot_product_attention

class MultiHeadAttention(nn.Module):
    "h attention heads of width d_k = d_model / h, concatenated and mixed by W_O."
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        def split(x):
            return x.view(x.size(0), self.h, x.size(1), self.d_k)
        q, k, v = split(self.w_q(query)), split(self.w_k(key)), split(self.w_v(value))
        out = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(out.reshape(query.size(0), query.size(1), self.h * self.d_k))
