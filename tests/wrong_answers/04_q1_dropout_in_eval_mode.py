# Question 1 (2 points): FeedForward
# WRONG: functional dropout with its default training=True: it keeps dropping in eval mode.
class FeedForward(nn.Module):
    "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, applied to each position alone."
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1, self.w_2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.p = dropout

    def forward(self, x):
        return self.w_2(F.dropout(self.w_1(x).relu(), self.p))
