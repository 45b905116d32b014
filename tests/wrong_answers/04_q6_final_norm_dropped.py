# Question 6 (3 points): find the bug in Encoder
# WRONG: the layers are fixed, but the "fix" also drops the final LayerNorm that a Pre-LN stack needs.
from transformer.encoder import EncoderLayer

class Encoder(nn.Module):
    "A stack of n_layers encoder layers (with a final LayerNorm when opts.pre_norm)."
    def __init__(self, opts, n_layers):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(opts) for _ in range(n_layers))
        self.norm = nn.Identity()

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)
