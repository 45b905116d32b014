# Question 3 (4 points): MultiHeadAttention
# RIGHT: one head at a time, each with its slice of the projections, keeping a head dimension of 1 so that
# the mask broadcasts as given; the heads concatenated before W_O.
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
        heads = []
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            q = F.linear(query, self.w_q.weight[rows], self.w_q.bias[rows]).unsqueeze(1)   # (batch, 1, len_q, d_k)
            k = F.linear(key, self.w_k.weight[rows], self.w_k.bias[rows]).unsqueeze(1)
            v = F.linear(value, self.w_v.weight[rows], self.w_v.bias[rows]).unsqueeze(1)
            heads.append(scaled_dot_product_attention(q, k, v, mask).squeeze(1))       # (batch, len_q, d_k)
        return self.w_o(torch.cat(heads, dim=-1))
