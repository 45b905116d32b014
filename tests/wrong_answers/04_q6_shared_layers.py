# Question 6 (3 points): find the bug in Encoder
# WRONG: the bug left in: [layer] * N puts the same layer (one set of weights) N times in the stack.
from transformer.encoder import EncoderLayer

class Encoder(nn.Module):
    "A stack of N encoder layers (with a final LayerNorm when pre_norm)."
    def __init__(self, N, d_model, h, d_ff, dropout=0.1, pre_norm=False):
        super().__init__()
        layer = EncoderLayer(d_model, h, d_ff, dropout, pre_norm=pre_norm)
        self.layers = nn.ModuleList([layer] * N)
        self.norm = nn.LayerNorm(d_model) if pre_norm else nn.Identity()

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)
