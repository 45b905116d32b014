# Question 5 (2 points): noam_lr
# WRONG: the right values, as a 0-d tensor instead of the Python float the question asks for
def noam_lr(step, d_model, warmup, factor=1.0):
    "Linear warm-up for `warmup` steps, then decay with the inverse square root of the step."
    step = torch.tensor(float(step))
    return factor * d_model ** -0.5 * torch.minimum(step ** -0.5, step * warmup ** -1.5)
