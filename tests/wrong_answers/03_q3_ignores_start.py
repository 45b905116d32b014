# Question 3 (3 points): PositionalEncoding
# WRONG: `start` is ignored, so one-token-at-a-time decoding always gets position 0.
from transformer.embeddings import sinusoidal_encoding as package_sinusoidal_encoding

class PositionalEncoding(nn.Module):
    "Adds the sinusoidal encoding to a batch of embeddings, then dropout."
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", package_sinusoidal_encoding(max_len, d_model), persistent=False)

    def forward(self, x, start=0):
        return self.dropout(x + self.pe[:x.size(1)])
