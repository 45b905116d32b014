# Question 7 (2 points): what if there were no residual connections?
# WRONG: removes the LayerNorm (x + Sublayer(x)) instead of the residual connection.
from transformer.encoder import EncoderLayer, LayerOptions, SublayerConnection

def fresh_layers():
    "12 freshly initialized Post-LN encoder layers, the same weights at every call."
    torch.manual_seed(0)
    return [EncoderLayer(LayerOptions(16, 2, 32, dropout=0.0)).eval() for _ in range(12)]

def mean_cosine(y):
    "Mean cosine similarity between the different positions of y (batch, len, d_model), averaged over the batch."
    u = F.normalize(y, dim=-1)
    n = y.size(1)
    return (((u @ u.transpose(1, 2)).sum(dim=(1, 2)) - n) / (n * (n - 1))).mean().item()

x = torch.randn(1, 10, 16, generator=torch.Generator().manual_seed(1))      # (batch, len, d_model)

class NoNorm(SublayerConnection):
    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(x))

with torch.no_grad():
    y = x
    for layer in fresh_layers():
        y = layer(y)
    with_residual = mean_cosine(y)
    y = x
    for layer in fresh_layers():
        layer.sublayers = nn.ModuleList(NoNorm(16, 0.0) for _ in range(2))
        y = layer(y)
    without_residual = mean_cosine(y)
answer_q7 = without_residual - with_residual
