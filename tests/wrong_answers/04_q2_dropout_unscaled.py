# Question 2 (3 points): SublayerConnection (Post-LN and Pre-LN)
# WRONG: dropout written by hand without the 1/(1-p) scaling of the kept entries.
class SublayerConnection(nn.Module):
    "Residual + LayerNorm around a sublayer: Post-LN (paper) or Pre-LN."
    def __init__(self, d_model, dropout=0.1, pre_norm=False):
        super().__init__()
        self.norm, self.p, self.pre_norm = nn.LayerNorm(d_model), dropout, pre_norm

    def drop(self, y):
        return y * (torch.rand_like(y) >= self.p) if self.training else y

    def forward(self, x, sublayer):
        if self.pre_norm:
            return x + self.drop(sublayer(self.norm(x)))
        return self.norm(x + self.drop(sublayer(x)))
