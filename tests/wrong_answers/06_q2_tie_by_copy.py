# Question 2 (2 points): tie_weights
# WRONG: copies the values instead of sharing one Parameter (the matrices drift apart in training).
def tie_weights(model):
    "Share the target embedding with the output projection (and the source embedding if possible)."
    w = model.tgt_embed.lut.weight
    model.generator.weight = nn.Parameter(w.detach().clone())
    if model.src_embed.lut.weight.shape == w.shape:
        model.src_embed.lut.weight = nn.Parameter(w.detach().clone())
    return model
