# Question 2 (2 points): tie_weights
# WRONG: ties in the wrong direction: the shared matrix keeps the output projection's values, not the embedding's.
def tie_weights(model):
    "Share the target embedding with the output projection (and the source embedding if possible)."
    w = model.generator.weight
    model.tgt_embed.lut.weight = w
    if model.src_embed.lut.weight.shape == w.shape:
        model.src_embed.lut.weight = w
    return model
