# Question 3 (4 points): DecoderLayer
# WRONG: cross-attention takes its queries from the memory and its keys and values from the decoder.
from transformer.multi_head import MultiHeadAttention
from transformer.encoder import FeedForward, SublayerConnection

class DecoderLayer(nn.Module):
    "Masked self-attention, cross-attention over the encoder output, feed-forward."
    def __init__(self, opts):
        super().__init__()
        d_model, h, d_ff, dropout, pre_norm = opts.d_model, opts.h, opts.d_ff, opts.dropout, opts.pre_norm
        self.self_attn = MultiHeadAttention(d_model, h)
        self.cross_attn = MultiHeadAttention(d_model, h)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.sublayers = nn.ModuleList(SublayerConnection(d_model, dropout, pre_norm) for _ in range(3))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.sublayers[0](x, lambda y: self.self_attn(y, y, y, tgt_mask))
        x = self.sublayers[1](x, lambda y: self.cross_attn(memory, y, y, src_mask))
        return self.sublayers[2](x, self.ffn)
