# Question 6 (3 points): find the bug in Encoder
# WRONG: the bug left in: [layer] * n_layers puts the same layer (one set of weights) n_layers times in the stack.
from transformer.encoder import EncoderLayer

class Encoder(nn.Module):
    "A stack of n_layers encoder layers (with a final LayerNorm when opts.pre_norm)."
    def __init__(self, opts, n_layers):
        super().__init__()
        layer = EncoderLayer(opts)
        self.layers = nn.ModuleList([layer] * n_layers)
        self.norm = nn.LayerNorm(opts.d_model) if opts.pre_norm else nn.Identity()

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)
