# Question 3 (3 points): EncoderLayer
# RIGHT: the sublayer connections listed one by one, keyword arguments, attention as a method with the mask kept.
from transformer.multi_head import MultiHeadAttention
from transformer.encoder import FeedForward as PackageFeedForward, SublayerConnection as PackageSublayerConnection

class EncoderLayer(nn.Module):
    "Self-attention then feed-forward, each wrapped in a SublayerConnection."
    def __init__(self, opts):
        super().__init__()
        d_model, h, d_ff, dropout, pre_norm = opts.d_model, opts.h, opts.d_ff, opts.dropout, opts.pre_norm
        self.self_attn = MultiHeadAttention(d_model=d_model, h=h)
        self.ffn = PackageFeedForward(d_model, d_ff, dropout=dropout)
        self.sublayers = nn.ModuleList([PackageSublayerConnection(d_model, dropout=dropout, pre_norm=pre_norm),
                                        PackageSublayerConnection(d_model, dropout=dropout, pre_norm=pre_norm)])
        self._mask = None

    def attend(self, y):
        return self.self_attn(y, y, y, self._mask)

    def forward(self, x, mask=None):
        self._mask = mask
        attended, (_, ffn_block) = self.sublayers[0](x, self.attend), self.sublayers
        return ffn_block(attended, lambda y: self.ffn(y))
