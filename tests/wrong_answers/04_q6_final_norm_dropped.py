# Question 6 (3 points): find the bug in Encoder
# WRONG: the layers are fixed, but the "fix" also drops the final LayerNorm that a Pre-LN stack needs.
from transformer.encoder import EncoderLayer

class Encoder(nn.Module):
    "A stack of N encoder layers (with a final LayerNorm when pre_norm)."
    def __init__(self, N, d_model, h, d_ff, dropout=0.1, pre_norm=False):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(d_model, h, d_ff, dropout, pre_norm=pre_norm) for _ in range(N))
        self.norm = nn.Identity()

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)
