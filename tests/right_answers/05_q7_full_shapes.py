# Question 7 (2 points): the masks of a decoder layer
# RIGHT: both masks built without the package, already expanded to (batch, 1, len_t, len_k).
from transformer.attention import causal_mask, padding_mask

def decoder_masks(src, tgt, pad_id):
    "src (batch, len_s) and tgt (batch, len_t) ids -> (src_mask, tgt_mask) for DecoderLayer.forward."
    b, len_s, len_t = src.size(0), src.size(1), tgt.size(1)
    src_mask = (src != pad_id).view(b, 1, 1, len_s).expand(b, 1, len_t, len_s)
    pos = torch.arange(len_t)
    tgt_mask = (pos.view(-1, 1) >= pos.view(1, -1)) & (tgt != pad_id).view(b, 1, 1, len_t)
    return src_mask, tgt_mask
