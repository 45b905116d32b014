# Question 4 (2 points): share of the parameters in the embeddings
# RIGHT: the package's per-component counts on a meta-device model, as a NumPy float.
import numpy as np
from transformer.model import Transformer, TransformerConfig, count_parameters
with torch.device("meta"):
    parts = count_parameters(Transformer(TransformerConfig.base(8000, 10000)))
answer_q4 = np.float64(parts["src_embed"] + parts["tgt_embed"]) / parts["total"]
