# Question 2 (3 points): SublayerConnection (Post-LN and Pre-LN)
# RIGHT: F.layer_norm with the module's own gain and bias, F.dropout that follows self.training, one expression.
class SublayerConnection(nn.Module):
    "Residual + LayerNorm around a sublayer: Post-LN (paper) or Pre-LN."
    def __init__(self, d_model, dropout=0.1, pre_norm=False):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.p, self.pre_norm = dropout, pre_norm

    def ln(self, t):
        return F.layer_norm(t, self.norm.normalized_shape, self.norm.weight, self.norm.bias, self.norm.eps)

    def forward(self, x, sublayer):
        drop = lambda t: F.dropout(t, self.p, self.training)
        return x + drop(sublayer(self.ln(x))) if self.pre_norm else self.ln(x + drop(sublayer(x)))
