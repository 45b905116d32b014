# Question 7 (2 points): the masks of a decoder layer
# WRONG: src_mask is (batch, len_s): it lines the batch up with the query axis and only fits when batch == len_t or 1.
from transformer.attention import causal_mask, padding_mask

def decoder_masks(src, tgt, pad_id):
    "src (batch, len_s) and tgt (batch, len_t) ids -> (src_mask, tgt_mask) for DecoderLayer.forward."
    src_mask = src != pad_id
    tgt_mask = padding_mask(tgt, pad_id) & causal_mask(tgt.size(1))
    return src_mask, tgt_mask
