# Question 6 (3 points): find the bug in Encoder
# RIGHT: the Annotated Transformer's way: n_layers deep copies of one layer (separate weights, equal at the start).
import copy
from transformer.encoder import EncoderLayer

class Encoder(nn.Module):
    "A stack of n_layers encoder layers (with a final LayerNorm when opts.pre_norm)."
    def __init__(self, opts, n_layers):
        super().__init__()
        layer = EncoderLayer(opts)
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(opts.d_model) if opts.pre_norm else nn.Identity()

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)
