# Question 2 (3 points): SublayerConnection (Post-LN and Pre-LN)
# WRONG: the dropout rate is hard-coded to the paper's 0.1, whatever `dropout` says.
class SublayerConnection(nn.Module):
    "Residual + LayerNorm around a sublayer: Post-LN (paper) or Pre-LN."
    def __init__(self, d_model, dropout=0.1, pre_norm=False):
        super().__init__()
        self.norm, self.dropout, self.pre_norm = nn.LayerNorm(d_model), nn.Dropout(0.1), pre_norm

    def forward(self, x, sublayer):
        if self.pre_norm:
            return x + self.dropout(sublayer(self.norm(x)))
        return self.norm(x + self.dropout(sublayer(x)))
