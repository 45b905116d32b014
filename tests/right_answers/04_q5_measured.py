# Question 5 (2 points): positions that change when a padded input changes
# RIGHT: measured with the package's layer, as the question describes, counted with Python.
from transformer.attention import padding_mask
from transformer.encoder import EncoderLayer as PackageEncoderLayer, LayerOptions

torch.manual_seed(0)
layer = PackageEncoderLayer(LayerOptions(16, 4, 64, dropout=0.0)).eval()
x = torch.randn(1, 10, 16)
x_changed = x.clone()
x_changed[0, 8] = torch.randn(16)
mask = padding_mask(torch.tensor([[5, 3, 8, 2, 9, 4, 6, 0, 0, 0]]), 0)
with torch.no_grad():
    before, after = layer(x, mask)[0], layer(x_changed, mask)[0]
answer_q5 = sum(1 for i in range(10) if (after[i] - before[i]).abs().max().item() > 1e-6)
