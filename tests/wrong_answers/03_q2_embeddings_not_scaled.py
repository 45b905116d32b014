# Question 2 (1 point): Embeddings
# WRONG: the looked-up vectors are not multiplied by sqrt(d_model).
class Embeddings(nn.Module):
    "Token lookup table, scaled by sqrt(d_model)."
    def __init__(self, vocab, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab, d_model)
        self.d_model = d_model

    def forward(self, ids):
        return self.lut(ids)
