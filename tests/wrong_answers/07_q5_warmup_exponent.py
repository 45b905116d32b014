# Question 5 (2 points): noam_lr
# WRONG: warmup^-0.5 instead of warmup^-1.5 in the warm-up branch.
def noam_lr(step, d_model, warmup, factor=1.0):
    "Linear warm-up for `warmup` steps, then decay with the inverse square root of the step."
    return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -0.5)
