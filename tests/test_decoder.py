"""Tests for transformer.decoder against torch.nn.TransformerDecoderLayer and causality properties."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.testing import assert_close

from transformer.attention import causal_mask, padding_mask
from transformer.decoder import Decoder, DecoderLayer
from transformer.encoder import LayerOptions

D_MODEL, H, D_FF = 16, 4, 32


def opts(**kw):
    "The test's sizes, with options from `kw`."
    return LayerOptions(D_MODEL, H, D_FF, **kw)


def randomize_norms(module):
    for m in module.modules():
        if isinstance(m, nn.LayerNorm):
            nn.init.normal_(m.weight, 1.0, 0.5)
            nn.init.normal_(m.bias, 0.0, 0.5)


def copy_attention(ours, ref):
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        ref.out_proj.weight.copy_(ours.w_o.weight)
        ref.out_proj.bias.copy_(ours.w_o.bias)


def torch_layer(ours, pre_norm):
    "nn.TransformerDecoderLayer with a copy of our layer's weights."
    ref = nn.TransformerDecoderLayer(D_MODEL, H, D_FF, dropout=0.0, batch_first=True, norm_first=pre_norm)
    copy_attention(ours.self_attn, ref.self_attn)
    copy_attention(ours.cross_attn, ref.multihead_attn)
    ref.linear1.load_state_dict(ours.ffn.w_1.state_dict())
    ref.linear2.load_state_dict(ours.ffn.w_2.state_dict())
    for norm, sub in zip([ref.norm1, ref.norm2, ref.norm3], ours.sublayers):
        norm.load_state_dict(sub.norm.state_dict())
    return ref.train()  # dropout is 0; train mode avoids fused paths


@pytest.fixture
def pair():
    "Target (batch, 5, d) and memory (batch, 7, d) of different lengths, both with padding."
    torch.manual_seed(0)
    src_ids = torch.tensor([[5, 3, 8, 2, 9, 4, 7], [6, 2, 7, 3, 0, 0, 0]])
    tgt_ids = torch.tensor([[1, 4, 6, 3, 5], [1, 8, 2, 0, 0]])
    return torch.randn(2, 5, D_MODEL), torch.randn(2, 7, D_MODEL), src_ids, tgt_ids


def masks(src_ids, tgt_ids):
    return padding_mask(src_ids, 0), padding_mask(tgt_ids, 0) & causal_mask(tgt_ids.size(1))


def torch_masks(src_ids, tgt_ids):
    n = tgt_ids.size(1)
    return dict(
        tgt_mask=~causal_mask(n)[0, 0],
        tgt_key_padding_mask=(tgt_ids == 0),
        memory_key_padding_mask=(src_ids == 0),
    )


@pytest.mark.parametrize("pre_norm", [False, True])
def test_decoder_layer_matches_torch(pair, pre_norm):
    x, memory, src_ids, tgt_ids = pair
    torch.manual_seed(1)
    ours = DecoderLayer(opts(dropout=0.0, pre_norm=pre_norm))
    randomize_norms(ours)
    src_mask, tgt_mask = masks(src_ids, tgt_ids)
    expected = torch_layer(ours, pre_norm)(x, memory, **torch_masks(src_ids, tgt_ids))
    out = ours(x, memory, src_mask, tgt_mask)
    assert out.shape == x.shape
    assert_close(out, expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("pre_norm", [False, True])
def test_decoder_stack_matches_torch_layers(pair, pre_norm):
    x, memory, src_ids, tgt_ids = pair
    torch.manual_seed(2)
    dec = Decoder(opts(dropout=0.0, pre_norm=pre_norm), n_layers=3)
    randomize_norms(dec)
    src_mask, tgt_mask = masks(src_ids, tgt_ids)
    expected = x
    for layer in dec.layers:
        expected = torch_layer(layer, pre_norm)(expected, memory, **torch_masks(src_ids, tgt_ids))
    if pre_norm:
        expected = F.layer_norm(expected, (D_MODEL,), dec.norm.weight, dec.norm.bias)
    assert_close(dec(x, memory, src_mask, tgt_mask), expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("pre_norm", [False, True])
def test_future_target_positions_do_not_leak(pre_norm):
    torch.manual_seed(3)
    dec = Decoder(opts(dropout=0.0, pre_norm=pre_norm), n_layers=2)
    n = 6
    x, memory = torch.randn(2, n, D_MODEL), torch.randn(2, 4, D_MODEL)
    base = dec(x, memory, None, causal_mask(n))
    for j in range(1, n):
        changed = x.clone()
        changed[:, j:] = torch.randn(2, n - j, D_MODEL)
        out = dec(changed, memory, None, causal_mask(n))
        assert_close(out[:, :j], base[:, :j])  # earlier outputs: unchanged
        assert not torch.allclose(out[:, j], base[:, j])  # position j itself does change


def test_padded_memory_does_not_change_output(pair):
    x, memory, src_ids, tgt_ids = pair
    torch.manual_seed(4)
    dec = Decoder(opts(dropout=0.0), n_layers=2)
    src_mask, tgt_mask = masks(src_ids, tgt_ids)
    junk = memory.clone()
    junk[src_ids == 0] = 50 * torch.randn(int((src_ids == 0).sum()), D_MODEL)
    assert_close(dec(x, junk, src_mask, tgt_mask), dec(x, memory, src_mask, tgt_mask))
    real = memory.clone()
    real[1, 0] += 1.0  # a real source position does matter
    assert not torch.allclose(dec(x, real, src_mask, tgt_mask)[1], dec(x, memory, src_mask, tgt_mask)[1])


@pytest.mark.parametrize("stack", [False, True])
def test_ffn_dropout_is_its_own_rate(pair, stack):
    "ffn_dropout drops inside the FFN only; None follows dropout; the stack hands it to every layer."
    x, memory, src_ids, tgt_ids = pair
    src_mask, tgt_mask = masks(src_ids, tgt_ids)
    make = (lambda **kw: Decoder(opts(**kw), n_layers=2)) if stack else (lambda **kw: DecoderLayer(opts(**kw)))
    ffns = lambda m: [m.ffn] if not stack else [layer.ffn for layer in m.layers]
    run = lambda m: m(x, memory, src_mask, tgt_mask)
    torch.manual_seed(7)
    only_ffn = make(dropout=0.0, ffn_dropout=0.5).train()
    assert not torch.allclose(run(only_ffn), run(only_ffn))
    no_ffn = make(dropout=0.5, ffn_dropout=0.0).train()
    h = torch.randn(2, 5, D_MODEL)
    for ffn in ffns(no_ffn):
        assert_close(ffn(h), ffn.eval()(h))
        ffn.train()
    assert not torch.allclose(run(no_ffn), run(no_ffn))
    assert all(ffn.dropout.p == 0.3 for ffn in ffns(make(dropout=0.3)))


def test_parallel_pass_equals_prefix_by_prefix():
    torch.manual_seed(5)
    dec = Decoder(opts(dropout=0.0), n_layers=2)
    n = 5
    x, memory = torch.randn(1, n, D_MODEL), torch.randn(1, 3, D_MODEL)
    parallel = dec(x, memory, None, causal_mask(n))
    for t in range(n):
        assert_close(dec(x[:, : t + 1], memory, None, causal_mask(t + 1))[:, -1], parallel[:, t])


def test_cache_callables_are_used():
    torch.manual_seed(6)
    dec = Decoder(opts(dropout=0.0), n_layers=2)
    x, memory = torch.randn(1, 4, D_MODEL), torch.randn(1, 3, D_MODEL)
    calls = []

    def project(tag):
        def cache(mha, key, value):
            calls.append(tag)
            return mha.project_kv(key, value)

        return cache

    cache = [(project(("self", i)), project(("cross", i))) for i in range(2)]
    assert_close(dec(x, memory, None, causal_mask(4), cache), dec(x, memory, None, causal_mask(4)))
    assert calls == [("self", 0), ("cross", 0), ("self", 1), ("cross", 1)]


@pytest.mark.parametrize("training", [True, False])
def test_decoder_fast_path_equals_explicit(pair, training):
    x, memory, src_ids, tgt_ids = pair
    torch.manual_seed(7)
    slow = Decoder(opts(dropout=0.0), n_layers=2).train(training)
    fast = Decoder(opts(dropout=0.0, fast_attention=True), n_layers=2).train(training)
    fast.load_state_dict(slow.state_dict())
    src_mask, tgt_mask = masks(src_ids, tgt_ids)
    assert_close(fast(x, memory, src_mask, tgt_mask), slow(x, memory, src_mask, tgt_mask), atol=1e-5, rtol=1e-4)
