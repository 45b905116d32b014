# Question 3 (3 points): LabelSmoothingLoss
# WRONG: padding positions are zeroed but still counted in the mean.
class LabelSmoothingLoss(nn.Module):
    "Cross-entropy against label-smoothed targets, averaged over the non-pad target tokens."
    def __init__(self, smoothing=0.1, pad_id=0):
        super().__init__()
        self.smoothing, self.pad_id = smoothing, pad_id

    def forward(self, logits, target):
        vocab = logits.size(-1)
        q = torch.full_like(logits, self.smoothing / (vocab - 2))
        q[..., self.pad_id] = 0.0
        q = q.scatter(-1, target.unsqueeze(-1), 1.0 - self.smoothing)
        loss = -(q * F.log_softmax(logits, dim=-1)).sum(dim=-1)
        return (loss * (target != self.pad_id)).mean()
