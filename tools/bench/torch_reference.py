"""What a PyTorch user would write instead of the course's model and loss, for tools/bench/training.py
to time beside them: torch.nn.Transformer's encoder and decoder inside the course's embeddings,
positions and tied output layer, and F.cross_entropy with label smoothing."""

import torch.nn.functional as F
from torch import nn

from transformer.model import Transformer


class TorchTransformer(nn.Module):
    "The course's embeddings, positions and tied output layer around torch.nn.Transformer's encoder and decoder."

    def __init__(self, cfg, dropout):
        super().__init__()
        shell = Transformer(cfg)  # the same embedding, positional encoding and generator
        self.src_embed, self.tgt_embed, self.pos, self.generator = (
            shell.src_embed,
            shell.tgt_embed,
            shell.pos,
            shell.generator,
        )
        self.stacks = nn.Transformer(
            cfg.d_model,
            cfg.h,
            cfg.n_layers,
            cfg.n_layers,
            cfg.d_ff,
            dropout,
            batch_first=True,
            norm_first=cfg.pre_norm,
        )  # Pre-LN as the preset has it
        self.cfg = cfg

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        "Token ids -> logits (batch, len_t, vocab); the masks are rebuilt the way nn.Transformer wants them."
        pad = src == self.cfg.pad_id  # (batch, len_s), True = padding
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.size(1), device=tgt.device)
        y = self.stacks(
            self.pos(self.src_embed(src)),
            self.pos(self.tgt_embed(tgt)),
            tgt_mask=causal,
            src_key_padding_mask=pad,
            memory_key_padding_mask=pad,
            tgt_is_causal=True,
        )
        return self.generator(y)  # (batch, len_t, vocab)


def cross_entropy(smoothing, pad_id):
    "The loss a PyTorch user would write: F.cross_entropy with label smoothing (spread over the whole vocabulary)."
    return lambda logits, target: F.cross_entropy(
        logits.float().flatten(0, 1), target.flatten(), ignore_index=pad_id, label_smoothing=smoothing
    )
