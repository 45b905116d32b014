# Question 3 (4 points): MultiHeadAttention
# WRONG: the value is projected with w_k (a copy-paste slip); w_v is never used.
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
            return x.view(x.size(0), x.size(1), self.h, self.d_k).transpose(1, 2)
        q, k, v = split(self.w_q(query)), split(self.w_k(key)), split(self.w_k(value))
        out = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(out.transpose(1, 2).reshape(query.size(0), query.size(1), self.h * self.d_k))
