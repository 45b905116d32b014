# Question 1 (3 points): the forward pass from the model's parts
# WRONG: the masks are squeezed: right for one sentence pair, but with a batch the sentence axis meets the query axis.
from transformer.attention import causal_mask, padding_mask

def transformer_forward(model, src, tgt, pad_id):
    "Logits (batch, len_t, tgt_vocab) computed from the model's components."
    src_mask = padding_mask(src, pad_id).squeeze()
    tgt_mask = (padding_mask(tgt, pad_id) & causal_mask(tgt.size(1))).squeeze()
    memory = model.encoder(model.pos(model.src_embed(src)), src_mask)
    x = model.decoder(model.pos(model.tgt_embed(tgt)), memory, src_mask, tgt_mask)
    return model.generator(x)
