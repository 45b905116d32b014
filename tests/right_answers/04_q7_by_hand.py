# Question 7 (2 points): what if there were no residual connections?
# RIGHT: the residual-free stack run by hand with each layer's own modules; numpy for the difference.
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

import numpy as np

def run(residual):
    y = x
    for layer in fresh_layers():
        norm_a, norm_f = layer.sublayers[0].norm, layer.sublayers[1].norm
        a = layer.self_attn(y, y, y)
        y = norm_a(y + a) if residual else norm_a(a)
        f = layer.ffn(y)
        y = norm_f(y + f) if residual else norm_f(f)
    return mean_cosine(y)

with torch.no_grad():
    answer_q7 = float(np.subtract(run(False), run(True)))
