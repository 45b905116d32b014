# Question 3 (3 points): EncoderLayer
# WRONG: pre_norm is not passed on, so the layer is always Post-LN.
from transformer.multi_head import MultiHeadAttention
from transformer.encoder import FeedForward as PackageFeedForward, SublayerConnection as PackageSublayerConnection

class EncoderLayer(nn.Module):
    "Self-attention then feed-forward, each wrapped in a SublayerConnection."
    def __init__(self, opts):
        super().__init__()
        d_model, h, d_ff, dropout, pre_norm = opts.d_model, opts.h, opts.d_ff, opts.dropout, opts.pre_norm
        self.self_attn = MultiHeadAttention(d_model, h)
        self.ffn = PackageFeedForward(d_model, d_ff, dropout)
        self.sublayers = nn.ModuleList(PackageSublayerConnection(d_model, dropout) for _ in range(2))

    def forward(self, x, mask=None):
        x = self.sublayers[0](x, lambda y: self.self_attn(y, y, y, mask))
        return self.sublayers[1](x, self.ffn)
