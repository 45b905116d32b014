"""The models exercise 8's decoding questions run: small random Transformers, and table models whose next-token
probabilities are written by hand so that a typical mistake (greedy choice, padding or banned tokens predicted, a
narrow beam) gives another output than the package's decoders."""

from types import SimpleNamespace

import torch

from transformer.model import Transformer, TransformerConfig

PAD, UNK, BOS, EOS = 0, 1, 2, 3  # the special ids of chapters 7 and 8; real tokens start at 4


def random_model(seed, vocab=8, pad_id=PAD):
    "A small Transformer with random weights and no dropout, in eval mode (untied output: more varied tokens)."
    torch.manual_seed(seed)
    cfg = TransformerConfig(
        vocab, vocab, d_model=16, n_layers=2, h=2, d_ff=32, dropout=0.0, tie_output=False, pad_id=pad_id
    )
    return Transformer(cfg).eval()


class TableModel(torch.nn.Module):
    """A stand-in for a Transformer: the next token's log-probabilities are a fixed table row chosen by
    the previous token. It has what decoding uses: `encode`, `decode` and `cfg.pad_id`."""

    def __init__(self, table):  # table (vocab, vocab): row = previous token
        super().__init__()
        self.log_table = (table + 1e-9).log()  # rows sum to 1 (or are all zero: then uniform)
        self.cfg = SimpleNamespace(pad_id=PAD, src_vocab=table.size(0), tgt_vocab=table.size(0))

    def encode(self, src, src_mask=None):
        return torch.zeros(src.size(0), src.size(1), 1)  # (batch, len_s, 1): the table ignores the source

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None, cache=None, start=0):
        return self.log_table[tgt]  # (batch, len_t, vocab)


A, B, C, D = 4, 5, 6, 7


def greedy_trap():
    """Greedy takes A (0.6), then nothing better than <eos> at 0.34: 0.204. "B <eos>" has 0.4 x 0.99 = 0.396.
    After <eos> the table is flat: a finished hypothesis that is extended keeps losing probability."""
    t = torch.zeros(7, 7)
    t[BOS, [A, B]] = torch.tensor([0.6, 0.4])
    t[A, [EOS, A, C]] = torch.tensor([0.34, 0.33, 0.33])
    t[B, [EOS, C]] = torch.tensor([0.99, 0.01])
    t[C, [EOS, A]] = torch.tensor([0.9, 0.1])
    t[EOS, [EOS, A, B, C]] = 0.25
    return TableModel(t)


def long_or_short():
    """A model for the length penalty: "A <eos>" (0.52 x 0.96 = 0.499) has the highest probability, but
    "B C D <eos>" (0.48 x 0.99^3 = 0.466) wins once scores are divided by lp(|Y|) with alpha = 0.6 or 1."""
    t = torch.zeros(8, 8)
    t[BOS, [A, B]] = torch.tensor([0.52, 0.48])
    t[A, [EOS, C]] = torch.tensor([0.96, 0.04])
    t[B, [C, EOS]] = torch.tensor([0.99, 0.01])
    t[C, [D, EOS]] = torch.tensor([0.99, 0.01])
    t[D, [EOS, C]] = torch.tensor([0.99, 0.01])
    t[EOS, EOS] = 1.0
    return TableModel(t)


def pad_trap():
    """<pad> is the most likely next token after <bos>, A and C (0.5, 0.45, 0.4), and after <pad> it is sure: a search
    that does not exclude padding outputs nothing but padding. Without it: greedy "A <eos>", beam 2 "B <eos>"."""
    t = torch.zeros(8, 8)
    t[BOS, [PAD, A, B]] = torch.tensor([0.5, 0.3, 0.2])
    t[A, [PAD, EOS, C]] = torch.tensor([0.45, 0.3, 0.25])
    t[B, [PAD, EOS]] = torch.tensor([0.1, 0.9])
    t[C, [PAD, EOS]] = torch.tensor([0.4, 0.6])
    t[PAD, PAD] = 1.0
    t[EOS, [EOS, A, B, C]] = 0.25
    return TableModel(t)


def unk_trap():
    """<unk> is the most likely token after <bos> and after A (0.5): with ban=[UNK] greedy gives "A <eos>" and a beam
    of 2 "B <eos>"; with ban=[UNK, A] both give "B <eos>"; without a ban both give "<unk> <eos>"."""
    t = torch.zeros(8, 8)
    t[BOS, [UNK, A, B]] = torch.tensor([0.5, 0.3, 0.2])
    t[A, [UNK, EOS, C]] = torch.tensor([0.5, 0.3, 0.2])
    t[B, [EOS, UNK]] = torch.tensor([0.6, 0.4])
    t[C, EOS] = 1.0
    t[UNK, EOS] = 1.0
    t[EOS, [EOS, A, B, C]] = 0.25
    return TableModel(t)


SOURCES = torch.tensor(
    [[5, 6, 4, 7, 6, 5], [7, 4, 4, 0, 0, 0], [6, 6, 5, 7, 0, 0], [4, 5, 0, 0, 0, 0], [7, 7, 7, 7, 7, 0]]
)


def show(ids):
    return "[" + ", ".join(map(str, ids)) + "]"


E = 8  # a fifth real token, for the table of question 8


def first_token_trap():
    """The best output, "D <eos>" (0.2 x 0.95 = 0.19), starts with the least likely first token: A, B, C (0.3, 0.27, 0.23)
    each end with lower probability (0.18, 0.167, 0.150). A beam narrower than 4 drops D at the first step."""
    t = torch.zeros(10, 10)
    t[BOS, [A, B, C, D]] = torch.tensor([0.3, 0.27, 0.23, 0.2])
    t[A, [EOS, E]] = torch.tensor([0.6, 0.4])
    t[B, [EOS, E]] = torch.tensor([0.62, 0.38])
    t[C, [EOS, E]] = torch.tensor([0.65, 0.35])
    t[D, [EOS, E]] = torch.tensor([0.95, 0.05])
    t[E, EOS] = 1.0
    t[EOS, EOS] = 1.0
    return TableModel(t)
