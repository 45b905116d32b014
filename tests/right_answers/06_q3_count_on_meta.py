# Question 3 (2 points): parameters after changing h and d_ff
# RIGHT: counted by the package on a model built on the meta device.
from transformer.model import Transformer, TransformerConfig, count_parameters
with torch.device("meta"):
    changed = Transformer(TransformerConfig.base(37000, 37000, share_embeddings=True, h=16, d_ff=1024))
answer_q3 = count_parameters(changed)["total"]
