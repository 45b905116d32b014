# Question 2 (2 points): tie_weights
# WRONG: shares the storage through .data but keeps three Parameter objects: an optimizer sees the matrix three times.
def tie_weights(model):
    "Share the target embedding with the output projection (and the source embedding if possible)."
    w = model.tgt_embed.lut.weight
    model.generator.weight.data = w.data
    if model.src_embed.lut.weight.shape == w.shape:
        model.src_embed.lut.weight.data = w.data
    return model
