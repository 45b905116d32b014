# Question 7 (2 points): without the target padding mask
# RIGHT: the full mask written out by hand, positions compared one by one in a loop, the count a NumPy integer.
import numpy as np
from transformer.attention import causal_mask
from transformer.model import Transformer, TransformerConfig

torch.manual_seed(0)
model = Transformer(TransformerConfig(11, 13, d_model=32, n_layers=2, h=4, d_ff=64, dropout=0.0)).eval()
src = torch.tensor([[5, 3, 8, 2, 9, 4, 7], [6, 2, 2, 8, 3, 0, 0]])
tgt = torch.tensor([[1, 4, 9, 12, 3, 2], [1, 7, 5, 2, 0, 0]])
full = (tgt != 0)[:, None, None, :] & torch.ones(6, 6, dtype=torch.bool).tril()
with torch.no_grad():
    a = model(src, tgt, tgt_mask=full).numpy()
    b = model(src, tgt, tgt_mask=causal_mask(6)).numpy()
answer_q7 = np.int64(sum(np.abs(a[s, t] - b[s, t]).max() > 1e-5 for s in range(2) for t in range(6)))
