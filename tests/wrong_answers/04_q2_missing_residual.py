# Question 2 (3 points): SublayerConnection (Post-LN and Pre-LN)
# WRONG: the residual connection is missing (x is not added back).
class SublayerConnection(nn.Module):
    "Residual + LayerNorm around a sublayer: Post-LN (paper) or Pre-LN."
    def __init__(self, d_model, dropout=0.1, pre_norm=False):
        super().__init__()
        self.norm, self.dropout, self.pre_norm = nn.LayerNorm(d_model), nn.Dropout(dropout), pre_norm

    def forward(self, x, sublayer):
        if self.pre_norm:
            return self.dropout(sublayer(self.norm(x)))
        return self.norm(self.dropout(sublayer(x)))
