# Question 1 (4 points): assemble your Transformer
# WRONG: the layers come from the package instead of `pieces`, so the capstone would train the package's model.
from transformer.encoder import EncoderLayer
from transformer.decoder import DecoderLayer
class MyTransformer(nn.Module):
    "Encoder-decoder built from your pieces: (src ids, tgt ids) -> next-token logits."
    def __init__(self, cfg, pieces):
        super().__init__()
        self.cfg = cfg
        Embeddings, PositionalEncoding = pieces["Embeddings"], pieces["PositionalEncoding"]
        self.src_embed = Embeddings(cfg.src_vocab, cfg.d_model)
        self.tgt_embed = Embeddings(cfg.tgt_vocab, cfg.d_model)
        self.pos = PositionalEncoding(cfg.d_model, cfg.dropout, cfg.max_len)
        opts = cfg.layer_options                                   # d_model, h, d_ff, dropout, ...
        self.encoder_layers = nn.ModuleList(EncoderLayer(opts) for _ in range(cfg.n_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(opts) for _ in range(cfg.n_layers))
        self.generator = nn.Linear(cfg.d_model, cfg.tgt_vocab, bias=False)
        self.generator.weight = self.tgt_embed.lut.weight          # tied: one Parameter, two uses

    def encode(self, src, src_mask):
        x = self.pos(self.src_embed(src))                          # (batch, len_s, d_model)
        for layer in self.encoder_layers:
            x = layer(x, src_mask)
        return x

    def decode(self, tgt, memory, src_mask, tgt_mask):
        x = self.pos(self.tgt_embed(tgt))                          # (batch, len_t, d_model)
        for layer in self.decoder_layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.generator(x)                                   # (batch, len_t, tgt_vocab)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        if src_mask is None:
            src_mask = padding_mask(src, self.cfg.pad_id)          # (batch, 1, 1, len_s)
        if tgt_mask is None:
            tgt_mask = padding_mask(tgt, self.cfg.pad_id) & causal_mask(tgt.size(1), tgt.device)
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)
