# Question 6 (2 points): find the bug in softmax_by_hand
# WRONG: the maximum over dim=0 (one per column, numpy's axis=0), still shared by rows on different scales.
def softmax_by_hand(scores):
    "softmax over the last dimension of scores (..., n), without torch's softmax"
    e = torch.exp(scores - scores.amax(dim=0, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
