# Question 4 (2 points): RMS of the encoding after dropout
# RIGHT: measured instead of predicted, with another seed and another batch size, the RMS computed in numpy.
import numpy as np
from transformer.embeddings import PositionalEncoding as PackagePositionalEncoding

torch.manual_seed(7)
with torch.no_grad():
    out = PackagePositionalEncoding(512, 0.1).train()(torch.zeros(2, 1000, 512)).numpy()
answer_q4 = float(np.sqrt(np.mean(out.astype(np.float64) ** 2)))
