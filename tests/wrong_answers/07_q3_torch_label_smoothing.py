# Question 3 (3 points): LabelSmoothingLoss
# WRONG: PyTorch's label_smoothing spreads smoothing / vocab over all tokens, padding and target included.
class LabelSmoothingLoss(nn.Module):
    "Cross-entropy against label-smoothed targets, averaged over the non-pad target tokens."
    def __init__(self, smoothing=0.1, pad_id=0):
        super().__init__()
        self.smoothing, self.pad_id = smoothing, pad_id

    def forward(self, logits, target):
        return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=self.pad_id,
                               label_smoothing=self.smoothing)
