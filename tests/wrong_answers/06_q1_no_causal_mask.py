# Question 1 (3 points): the forward pass from the model's parts
# WRONG: the target mask has padding only, no causal part: the decoder sees the future.
from transformer.attention import causal_mask, padding_mask

def transformer_forward(model, src, tgt, pad_id):
    "Logits (batch, len_t, tgt_vocab) computed from the model's components."
    src_mask = padding_mask(src, pad_id)
    tgt_mask = padding_mask(tgt, pad_id)
    memory = model.encoder(model.pos(model.src_embed(src)), src_mask)
    x = model.decoder(model.pos(model.tgt_embed(tgt)), memory, src_mask, tgt_mask)
    return model.generator(x)
