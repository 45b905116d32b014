# Question 1 (2 points): FeedForward
# RIGHT: clamp instead of relu, and dropout written by hand (Bernoulli mask from torch.rand, inverted scaling).
class FeedForward(nn.Module):
    "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, applied to each position alone."
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.rate = dropout

    def forward(self, x):
        hidden = self.w_1(x).clamp(min=0)
        if self.training and self.rate > 0:
            hidden = hidden * (torch.rand_like(hidden) >= self.rate) / (1 - self.rate)
        return self.w_2(hidden)
