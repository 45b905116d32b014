# Question 5 (2 points): without the causal mask
# RIGHT: the loop run position by position, the count taken from the largest difference per position, a NumPy sum.
from transformer.attention import causal_mask
from transformer.decoder import Decoder
from transformer.encoder import LayerOptions

torch.manual_seed(0)
decoder = Decoder(LayerOptions(d_model=16, h=4, d_ff=64, dropout=0.0), n_layers=2).eval()
x, memory = torch.randn(1, 6, 16), torch.randn(1, 7, 16)
with torch.no_grad():
    parallel = decoder(x, memory, None, None)
    diffs = []
    for t in range(6):
        prefix = decoder(x[:, :t + 1], memory, None, causal_mask(t + 1))
        diffs.append((prefix[0, -1] - parallel[0, t]).abs().max().item())
answer_q5 = int((torch.tensor(diffs) < 1e-5).numpy().sum())
