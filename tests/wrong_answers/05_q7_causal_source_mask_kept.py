# Question 7 (2 points): the masks of a decoder layer
# WRONG: the colleague's version unchanged: the causal mask is also applied to the cross-attention.
from transformer.attention import causal_mask, padding_mask

def decoder_masks(src, tgt, pad_id):
    "src (batch, len_s) and tgt (batch, len_t) ids -> (src_mask, tgt_mask) for DecoderLayer.forward."
    causal = causal_mask(tgt.size(1))
    src_mask = padding_mask(src, pad_id) & causal
    tgt_mask = padding_mask(tgt, pad_id) & causal
    return src_mask, tgt_mask
