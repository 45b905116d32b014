# Question 1 (2 points): FeedForward
# WRONG: the dropout rate is hard-coded to the paper's 0.1, whatever `dropout` says.
class FeedForward(nn.Module):
    "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, applied to each position alone."
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1, self.w_2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.w_2(self.dropout(self.w_1(x).relu()))
