"""Tests for transformer.model: the assembled encoder-decoder, its config and parameter count."""

import copy
import io
import math
import subprocess
import sys
from dataclasses import replace

import pytest
import torch
import torch.nn.functional as F

from transformer.attention import causal_mask, padding_mask
from transformer.model import Transformer, TransformerConfig, count_parameters

PAD = 0


def small_cfg(**kw):
    args = dict(src_vocab=17, tgt_vocab=19, d_model=32, n_layers=2, h=4, d_ff=48, dropout=0.0, max_len=64)
    return TransformerConfig(**{**args, **kw})


def small_model(seed=0, **kw):
    torch.manual_seed(seed)
    return Transformer(small_cfg(**kw)).eval()


def batch(cfg, b=3, len_s=7, len_t=6, seed=1):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(1, cfg.src_vocab, (b, len_s), generator=g)
    tgt = torch.randint(1, cfg.tgt_vocab, (b, len_t), generator=g)
    return src, tgt


def expected_parameters(V_src, V_tgt, d, d_ff, n_layers, share_embeddings, tie_output):
    "Closed formula, written out term by term (weights + biases)."
    linear = lambda n_in, n_out: n_in * n_out + n_out
    mha = 4 * linear(d, d)  # W_Q, W_K, W_V, W_O
    ffn = linear(d, d_ff) + linear(d_ff, d)
    layer_norm = 2 * d  # gain and bias
    encoder_layer = mha + ffn + 2 * layer_norm
    decoder_layer = 2 * mha + ffn + 3 * layer_norm
    tables = V_src * d if share_embeddings else (V_src + V_tgt) * d
    output = 0 if tie_output else V_tgt * d  # no bias
    return tables + output + n_layers * (encoder_layer + decoder_layer)


# ---------------------------------------------------------------- config


def test_presets_match_the_paper():
    base, big = TransformerConfig.base(100, 100), TransformerConfig.big(100, 100)
    assert (base.d_model, base.n_layers, base.h, base.d_ff, base.dropout) == (512, 6, 8, 2048, 0.1)
    assert (big.d_model, big.n_layers, big.h, big.d_ff, big.dropout) == (1024, 6, 16, 4096, 0.3)
    assert base.d_k == big.d_k == 64
    assert TransformerConfig.big(100, 100, dropout=0.1, n_layers=2).dropout == 0.1


def test_layer_options_come_from_the_config():
    "Every field of LayerOptions is a field of the config of the same name, and the model's layers use them."
    from dataclasses import fields

    from transformer.encoder import LayerOptions

    cfg = small_cfg(attn_dropout=0.2, ffn_dropout=0.0, pre_norm=True, fast_attention=True)
    opts = cfg.layer_options
    assert isinstance(opts, LayerOptions)
    assert {f.name: getattr(opts, f.name) for f in fields(LayerOptions)} == {
        f.name: getattr(cfg, f.name) for f in fields(LayerOptions)
    }
    model = Transformer(cfg)
    assert len(model.encoder.layers) == len(model.decoder.layers) == cfg.n_layers
    for layer in [*model.encoder.layers, *model.decoder.layers]:
        assert layer.self_attn.fast and layer.self_attn.dropout == 0.2 and layer.ffn.dropout.p == 0.0
        assert all(s.pre_norm for s in layer.sublayers)


def test_ffn_dropout_reaches_every_feed_forward_network():
    "ffn_dropout=0.0 (the paper): no dropout inside any FFN, residual dropout unchanged; None: follows dropout."
    torch.manual_seed(0)
    src, tgt = torch.randint(1, 20, (2, 6)), torch.randint(1, 20, (2, 5))
    paper = Transformer(TransformerConfig(20, 20, d_model=16, n_layers=2, h=2, d_ff=32, dropout=0.2, ffn_dropout=0.0))
    ffns = [layer.ffn for stack in (paper.encoder, paper.decoder) for layer in stack.layers]
    assert len(ffns) == 4 and all(f.dropout.p == 0.0 for f in ffns)
    assert all(
        s.dropout.p == 0.2 for stack in (paper.encoder, paper.decoder) for l in stack.layers for s in l.sublayers
    )
    only_ffn = Transformer(
        TransformerConfig(20, 20, d_model=16, n_layers=2, h=2, d_ff=32, dropout=0.0, ffn_dropout=0.5)
    ).train()
    assert not torch.allclose(only_ffn(src, tgt), only_ffn(src, tgt))
    none = Transformer(TransformerConfig(20, 20, d_model=16, n_layers=2, h=2, d_ff=32, dropout=0.0)).train()
    torch.testing.assert_close(none(src, tgt), none(src, tgt))  # None follows dropout=0.0: deterministic


def test_share_embeddings_needs_one_vocabulary():
    with pytest.raises(ValueError):
        Transformer(small_cfg(share_embeddings=True))  # 17 != 19


# ---------------------------------------------------------------- forward


def test_logits_shape_and_encode_decode():
    model = small_model()
    src, tgt = batch(model.cfg, b=3, len_s=7, len_t=5)
    memory = model.encode(src)
    assert memory.shape == (3, 7, 32)
    logits = model(src, tgt)
    assert logits.shape == (3, 5, model.cfg.tgt_vocab)
    assert torch.isfinite(logits).all()


def test_log_softmax_of_logits_is_a_distribution():
    model = small_model()
    src, tgt = batch(model.cfg)
    p = model(src, tgt).log_softmax(-1).exp()
    torch.testing.assert_close(p.sum(-1), torch.ones(p.shape[:-1]))


def test_causal_at_model_level():
    model = small_model()
    src, tgt = batch(model.cfg, len_t=8)
    logits = model(src, tgt)
    for t in range(tgt.size(1) - 1):
        changed = tgt.clone()
        changed[:, t + 1 :] = (changed[:, t + 1 :] % (model.cfg.tgt_vocab - 1)) + 1  # new non-pad tokens
        assert not torch.equal(changed, tgt)
        out = model(src, changed)
        torch.testing.assert_close(out[:, : t + 1], logits[:, : t + 1])
        assert not torch.allclose(out[:, t + 1 :], logits[:, t + 1 :])  # the future does matter later


def test_source_padding_does_not_change_logits():
    model = small_model()
    src, tgt = batch(model.cfg, b=2, len_s=5)
    padded = torch.cat([src, torch.full((2, 4), PAD)], dim=1)  # same sentences + 4 pads
    torch.testing.assert_close(model(padded, tgt), model(src, tgt))
    # and sentences of different lengths in one batch give what they give alone
    mixed = padded.clone()
    mixed[1, 3:] = PAD  # row 1 has 3 real tokens
    torch.testing.assert_close(model(mixed, tgt)[1:], model(src[1:, :3], tgt[1:]))


def test_token_ids_under_source_padding_are_invisible():
    "With the mask of the real lengths, whatever ids sit under the padding, the logits stay the same."
    model = small_model()
    src, tgt = batch(model.cfg, b=3, len_s=8)
    src[0, 5:] = PAD
    src[2, 2:] = PAD
    src_mask = padding_mask(src, PAD)
    logits = model(src, tgt)
    for seed in range(3):
        g = torch.Generator().manual_seed(seed)
        junk = torch.where(src == PAD, torch.randint(1, model.cfg.src_vocab, src.shape, generator=g), src)
        torch.testing.assert_close(model(junk, tgt, src_mask), logits)
        assert not torch.allclose(model(junk, tgt)[0], logits[0])  # unmasked, the same ids are read


def test_target_padding_does_not_change_real_positions():
    model = small_model()
    src, tgt = batch(model.cfg, b=2, len_t=4)
    padded = torch.cat([tgt, torch.full((2, 3), PAD)], dim=1)
    torch.testing.assert_close(model(src, padded)[:, :4], model(src, tgt))


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("pre_norm", [False, True])
def test_fast_attention_gives_the_same_logits(training, pre_norm):
    "dropout is 0 in small_cfg, so training mode is deterministic and both paths must agree."
    model = small_model(pre_norm=pre_norm).train(training)
    fast = Transformer(replace(model.cfg, fast_attention=True)).train(training)
    fast.load_state_dict(model.state_dict())
    src, tgt = batch(model.cfg)
    src[0, 4:] = PAD
    tgt[1, 3:] = PAD
    torch.testing.assert_close(fast(src, tgt), model(src, tgt), atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- weight tying


def test_output_projection_is_tied_to_target_embedding():
    model = small_model()
    W, E = model.generator.weight, model.tgt_embed.lut.weight
    assert W.data_ptr() == E.data_ptr()
    assert model.src_embed.lut.weight.data_ptr() != E.data_ptr()
    before = W.detach().clone()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    src, tgt = batch(model.cfg)
    F.cross_entropy(model.train()(src, tgt).flatten(0, 1), tgt.flatten()).backward()
    opt.step()
    assert not torch.equal(W.detach(), before)  # the step moved the matrix
    assert W.data_ptr() == E.data_ptr()
    assert torch.equal(model.generator.weight, model.tgt_embed.lut.weight)
    # the logits really are decoder output times the embedding table
    model.eval()
    h = model.decoder(model.pos(model.tgt_embed(tgt)), model.encode(src))
    torch.testing.assert_close(model.decode(tgt, model.encode(src)), h @ E.T)


def test_share_embeddings_shares_all_three():
    model = small_model(src_vocab=19, share_embeddings=True)
    tables = lambda m: [m.src_embed.lut.weight, m.tgt_embed.lut.weight, m.generator.weight]
    assert len({w.data_ptr() for w in tables(model)}) == 1
    # an in-place edit through one name is seen through the others
    with torch.no_grad():
        model.generator.weight[3] += 1.0
    assert torch.equal(model.src_embed.lut.weight[3], model.generator.weight[3])
    # a gradient step moves all three together, and they stay one tensor
    before = model.src_embed.lut.weight.detach().clone()
    src, tgt = batch(model.cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    F.cross_entropy(model.train()(src, tgt).flatten(0, 1), tgt.flatten()).backward()
    opt.step()
    assert not torch.equal(model.tgt_embed.lut.weight, before)
    assert len({w.data_ptr() for w in tables(model)}) == 1


@pytest.mark.parametrize("kw", [dict(), dict(src_vocab=19, share_embeddings=True)])
def test_tying_survives_state_dict_round_trip_and_copy(kw):
    model = small_model(**kw)
    with torch.no_grad():
        model.generator.weight.mul_(2.0)  # weights a fresh model does not have
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    fresh = Transformer(model.cfg)
    fresh.load_state_dict(torch.load(buffer))
    for m in (fresh, copy.deepcopy(model)):
        assert m.generator.weight.data_ptr() == m.tgt_embed.lut.weight.data_ptr()
        torch.testing.assert_close(m.generator.weight, model.generator.weight, rtol=0, atol=0)
        if m.cfg.share_embeddings:
            assert m.src_embed.lut.weight.data_ptr() == m.generator.weight.data_ptr()
    src, tgt = batch(model.cfg)
    torch.testing.assert_close(fresh.eval()(src, tgt), model(src, tgt))


def test_untied_output_has_its_own_matrix():
    model = small_model(tie_output=False)
    assert model.generator.weight.data_ptr() != model.tgt_embed.lut.weight.data_ptr()


# ---------------------------------------------------------------- initialization


def test_initialization():
    torch.manual_seed(0)
    d = 256
    model = Transformer(TransformerConfig(300, 300, d_model=d, n_layers=1, h=4, d_ff=512))
    std = model.src_embed.lut.weight.std().item()
    assert abs(std - d**-0.5) < 0.1 * d**-0.5  # N(0, d_model^-0.5)
    for name, p in model.named_parameters():
        if p.dim() == 2 and "lut" not in name:  # Xavier-uniform
            bound = math.sqrt(6 / (p.shape[0] + p.shape[1]))
            assert p.abs().max() <= bound, name
            assert abs(p.std().item() - bound / math.sqrt(3)) < 0.1 * bound, name
    # with this init and the sqrt(d_model) scale, embeddings enter at unit scale
    ids = torch.randint(1, 300, (4, 10))
    assert 0.8 < model.src_embed(ids).std().item() < 1.2


# ---------------------------------------------------------------- parameter counts


@pytest.mark.parametrize("kw", [dict(), dict(tie_output=False), dict(src_vocab=19, share_embeddings=True)])
def test_parameter_count_small(kw):
    model = small_model(**kw)
    c = model.cfg
    expected = expected_parameters(
        c.src_vocab, c.tgt_vocab, c.d_model, c.d_ff, c.n_layers, c.share_embeddings, c.tie_output
    )
    counts = count_parameters(model)
    assert counts["total"] == expected
    assert (
        counts["encoder"]
        + counts["decoder"]
        + sum(v for k, v in counts.items() if k not in ("encoder", "decoder", "total"))
        == expected
    )
    assert counts["total"] == len(torch.nn.utils.parameters_to_vector(model.parameters()))


@pytest.mark.parametrize("preset, paper", [("base", 65e6), ("big", 213e6)])
def test_paper_parameter_counts(preset, paper):
    cfg = getattr(TransformerConfig, preset)(37000, 37000, share_embeddings=True)
    expected = expected_parameters(37000, 37000, cfg.d_model, cfg.d_ff, cfg.n_layers, True, True)
    assert abs(expected / paper - 1) < 0.05
    with torch.device("meta"):  # shapes only, no memory
        model = Transformer(cfg)
    assert count_parameters(model)["total"] == expected


# ---------------------------------------------------------------- gradients


def test_tiny_model_overfits_one_batch():
    torch.manual_seed(0)
    cfg = TransformerConfig(12, 12, d_model=32, n_layers=1, h=4, d_ff=64, dropout=0.0)
    model = Transformer(cfg)
    src = torch.randint(1, 12, (4, 6))
    tgt_in, tgt_out = src[:, :-1], src[:, 1:]  # learn to copy, shifted
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(50):
        loss = F.cross_entropy(model(src, tgt_in).flatten(0, 1), tgt_out.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[0] > 0.8 * math.log(12)
    assert losses[-1] < 0.2 * losses[0]
    for name, p in model.named_parameters():
        assert p.grad is not None, name  # every parameter is used


# ---------------------------------------------------------------- incremental decoding


def growing_cache():
    "The simplest key/value cache: keep the projected keys and values of earlier steps, append the new ones."
    store = {}

    def cache(mha, key, value):
        k, v = mha.project_kv(key, value)  # (batch, h, new_len, d_k)
        if "k" in store:
            k, v = torch.cat([store["k"], k], dim=2), torch.cat([store["v"], v], dim=2)
        store["k"], store["v"] = k, v
        return k, v

    return cache


def test_decode_one_token_at_a_time_with_start_equals_parallel():
    "decode(tgt[:, t:t+1], ..., cache, start=t) must place token t at position t and see tokens 0..t."
    model = small_model()
    src, tgt = batch(model.cfg, b=2, len_t=6)
    src[1, 4:] = PAD
    src_mask = padding_mask(src, PAD)
    memory = model.encode(src, src_mask)
    parallel = model.decode(tgt, memory, src_mask, causal_mask(tgt.size(1)))
    cache = [(growing_cache(), lambda mha, key, value: mha.project_kv(key, value)) for _ in model.decoder.layers]
    steps = [model.decode(tgt[:, t : t + 1], memory, src_mask, None, cache, start=t) for t in range(tgt.size(1))]
    torch.testing.assert_close(torch.cat(steps, dim=1), parallel)
    torch.testing.assert_close(parallel, model(src, tgt))


# ---------------------------------------------------------------- public API


def test_readme_usage_base_model():
    from transformer import Transformer as T
    from transformer import TransformerConfig as C

    torch.manual_seed(0)
    model = T(C.base(src_vocab=8000, tgt_vocab=6000)).eval()
    src, tgt = torch.randint(1, 8000, (2, 9)), torch.randint(1, 6000, (2, 7))
    with torch.no_grad():
        logits = model(src, tgt)
    assert logits.shape == (2, 7, 6000)  # (batch, tgt_len, tgt_vocab)
    assert torch.isfinite(logits).all()
    assert count_parameters(model)["total"] == expected_parameters(8000, 6000, 512, 2048, 6, False, True)


def test_import_transformer_is_light():
    "The package's __init__ imports the model chapters only: no spaCy, plotting, or later chapters."
    heavy = [
        "spacy",
        "sacrebleu",
        "matplotlib",
        "pandas",
        "transformer.training",
        "transformer.machine",
        "transformer.loop",
        "transformer.generation",
        "transformer.data",
        "transformer.subwords",
        "transformer.translate",
        "transformer.cli",
        "transformer.shipped",
        "transformer.checkpoint",
        "transformer.presets",
    ]
    probe = f"import sys, transformer; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_api():
    import transformer

    names = [
        "scaled_dot_product_attention",
        "attention_weights",
        "causal_mask",
        "padding_mask",
        "MultiHeadAttention",
        "Embeddings",
        "PositionalEncoding",
        "sinusoidal_encoding",
        "FeedForward",
        "SublayerConnection",
        "LayerOptions",
        "EncoderLayer",
        "Encoder",
        "DecoderLayer",
        "Decoder",
        "Transformer",
        "TransformerConfig",
        "count_parameters",
    ]
    for name in names:
        assert callable(getattr(transformer, name)), name
    from transformer import Transformer as T
    from transformer import TransformerConfig as C

    assert T is Transformer and C is TransformerConfig


def test_out_vocab_scores_only_the_first_ids_of_the_tied_table():
    full = small_model(src_vocab=19, share_embeddings=True)
    first = Transformer(replace(full.cfg, out_vocab=11)).eval()
    first.load_state_dict(full.state_dict())
    src, tgt = batch(full.cfg)  # inputs may use every id
    torch.testing.assert_close(first(src, tgt), full(src, tgt)[..., :11])  # other kernel shapes
    assert first.generator.weight.data_ptr() == first.src_embed.lut.weight.data_ptr()
    # rows at or above out_vocab learn only where they are read: never, in this batch
    first.train()
    low_src, low_tgt = src % 11, tgt % 11
    F.cross_entropy(first(low_src, low_tgt).flatten(0, 1), low_tgt.flatten()).backward()
    grad = first.src_embed.lut.weight.grad
    assert grad[11:].abs().max() == 0 and grad[1:11].abs().sum(-1).gt(0).all()
    for bad in (0, 20):
        with pytest.raises(ValueError, match="out_vocab must be in 1..19"):
            Transformer(replace(full.cfg, out_vocab=bad))


def test_decoding_with_out_vocab_writes_only_those_ids():
    from transformer.generation import beam_search, greedy_search

    model = small_model(src_vocab=19, share_embeddings=True, out_vocab=7, seed=3)
    src, _ = batch(model.cfg)
    for hyps in (
        greedy_search(model, src, 2, 3, 10),
        [h[0] for h in beam_search(model, src, 2, 3, 10, beam_size=3)[0]],
    ):
        assert len(hyps) == 3 and all(0 <= i < 7 for h in hyps for i in h)
