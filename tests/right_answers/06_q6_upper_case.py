# Question 6 (2 points): the gradient of a tied matrix
# RIGHT: the letter in upper case, in brackets, after checking with torch.testing.
from transformer.model import Transformer, TransformerConfig

torch.manual_seed(0)
tied = Transformer(TransformerConfig(13, 13, d_model=16, n_layers=1, h=2, d_ff=32, dropout=0.0))
untied = Transformer(TransformerConfig(13, 13, d_model=16, n_layers=1, h=2, d_ff=32, dropout=0.0, tie_output=False))
untied.load_state_dict(tied.state_dict())
src, tgt_in, tgt_out = torch.tensor([[5, 3, 8, 2, 9]]), torch.tensor([[1, 4, 9, 12]]), torch.tensor([[4, 9, 12, 2]])
for model in (tied, untied):
    F.cross_entropy(model(src, tgt_in).flatten(0, 1), tgt_out.flatten()).backward()
torch.testing.assert_close(tied.generator.weight.grad, untied.generator.weight.grad + untied.tgt_embed.lut.weight.grad)
answer_q6 = " (C) "
