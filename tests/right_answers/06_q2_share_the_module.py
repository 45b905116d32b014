# Question 2 (2 points): tie_weights
# RIGHT: as the package does for equal vocabularies, the source embedding module becomes the target one.
def tie_weights(model):
    "Share the target embedding with the output projection (and the source embedding if possible)."
    model.generator.weight = model.tgt_embed.lut.weight
    if model.cfg.src_vocab == model.cfg.tgt_vocab:
        model.src_embed = model.tgt_embed
