# Question 5 (2 points): parameters Pre-LN adds
# RIGHT: both models built on the meta device and counted by the package.
from transformer.model import Transformer, TransformerConfig, count_parameters
with torch.device("meta"):
    post = Transformer(TransformerConfig.base(37000, 37000, share_embeddings=True))
    pre = Transformer(TransformerConfig.base(37000, 37000, share_embeddings=True, pre_norm=True))
answer_q5 = count_parameters(pre)["total"] - count_parameters(post)["total"]
