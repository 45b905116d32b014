# Question 3 (4 points): DecoderLayer
# RIGHT: the three sublayers as named inner functions instead of lambdas, the ModuleList built from a list.
from transformer.multi_head import MultiHeadAttention
from transformer.encoder import FeedForward, SublayerConnection

class DecoderLayer(nn.Module):
    "Masked self-attention, cross-attention over the encoder output, feed-forward."
    def __init__(self, opts):
        super().__init__()
        d_model, h, d_ff, dropout, pre_norm = opts.d_model, opts.h, opts.d_ff, opts.dropout, opts.pre_norm
        self.self_attn = MultiHeadAttention(d_model, h)
        self.cross_attn = MultiHeadAttention(d_model, h)
        self.ffn = FeedForward(d_model, d_ff, dropout=dropout)
        self.sublayers = nn.ModuleList([SublayerConnection(d_model, dropout=dropout, pre_norm=pre_norm),
                                        SublayerConnection(d_model, dropout=dropout, pre_norm=pre_norm),
                                        SublayerConnection(d_model, dropout=dropout, pre_norm=pre_norm)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        def masked_self_attention(y):
            return self.self_attn(query=y, key=y, value=y, mask=tgt_mask)

        def cross_attention(y):
            return self.cross_attn(query=y, key=memory, value=memory, mask=src_mask)

        self_sub, cross_sub, ffn_sub = self.sublayers
        x = self_sub(x, masked_self_attention)
        x = cross_sub(x, cross_attention)
        return ffn_sub(x, lambda y: self.ffn(y))
