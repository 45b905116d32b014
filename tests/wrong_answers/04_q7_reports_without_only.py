# Question 7 (2 points): what if there were no residual connections?
# WRONG: reports the similarity without residuals, not the difference to the stack with them.
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

class NoResidual(SublayerConnection):
    def forward(self, x, sublayer):
        return self.norm(self.dropout(sublayer(x)))

with torch.no_grad():
    y = x
    for layer in fresh_layers():
        layer.sublayers = nn.ModuleList(NoResidual(16, 0.0) for _ in range(2))
        y = layer(y)
answer_q7 = mean_cosine(y)
