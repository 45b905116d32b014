"""Tests for transformer.encoder against manual formulas and torch.nn.TransformerEncoderLayer."""

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.testing import assert_close

from transformer.attention import padding_mask
from transformer.encoder import Encoder, EncoderLayer, FeedForward, LayerOptions, SublayerConnection

D_MODEL, H, D_FF = 16, 4, 32


def opts(**kw):
    "The test's sizes, with options from `kw`."
    return LayerOptions(D_MODEL, H, D_FF, **kw)


def randomize_norms(module):
    "Non-trivial LayerNorm gains and biases, so that a misplaced norm cannot hide."
    for m in module.modules():
        if isinstance(m, nn.LayerNorm):
            nn.init.normal_(m.weight, 1.0, 0.5)
            nn.init.normal_(m.bias, 0.0, 0.5)


def torch_layer(ours, pre_norm):
    "nn.TransformerEncoderLayer with a copy of our layer's weights."
    ref = nn.TransformerEncoderLayer(D_MODEL, H, D_FF, dropout=0.0, batch_first=True, norm_first=pre_norm)
    a = ours.self_attn
    with torch.no_grad():
        ref.self_attn.in_proj_weight.copy_(torch.cat([a.w_q.weight, a.w_k.weight, a.w_v.weight]))
        ref.self_attn.in_proj_bias.copy_(torch.cat([a.w_q.bias, a.w_k.bias, a.w_v.bias]))
        ref.self_attn.out_proj.weight.copy_(a.w_o.weight)
        ref.self_attn.out_proj.bias.copy_(a.w_o.bias)
        ref.linear1.load_state_dict(ours.ffn.w_1.state_dict())
        ref.linear2.load_state_dict(ours.ffn.w_2.state_dict())
        ref.norm1.load_state_dict(ours.sublayers[0].norm.state_dict())
        ref.norm2.load_state_dict(ours.sublayers[1].norm.state_dict())
    return ref


@pytest.fixture
def batch():
    torch.manual_seed(0)
    ids = torch.tensor([[5, 3, 8, 2, 9, 4], [6, 2, 7, 0, 0, 0], [1, 1, 0, 0, 0, 0]])
    return torch.randn(3, 6, D_MODEL), ids


def test_feed_forward_matches_manual():
    torch.manual_seed(0)
    ffn = FeedForward(D_MODEL, D_FF, dropout=0.3).eval()
    x = torch.randn(2, 5, D_MODEL)
    h = torch.clamp(x @ ffn.w_1.weight.T + ffn.w_1.bias, min=0)
    assert ffn.w_1.weight.shape == (D_FF, D_MODEL) and ffn.w_2.weight.shape == (D_MODEL, D_FF)
    assert_close(ffn(x), h @ ffn.w_2.weight.T + ffn.w_2.bias)


def test_feed_forward_is_position_wise():
    torch.manual_seed(0)
    ffn = FeedForward(D_MODEL, D_FF, dropout=0.0)
    x = torch.randn(1, 5, D_MODEL)
    y = x.clone()
    y[0, 3] += 1.0
    diff = (ffn(y) - ffn(x)).abs().amax(-1)[0]
    assert (diff[[0, 1, 2, 4]] == 0).all() and diff[3] > 0


@pytest.mark.parametrize("pre_norm", [False, True])
def test_sublayer_connection_matches_formula(pre_norm):
    torch.manual_seed(0)
    sub = SublayerConnection(D_MODEL, dropout=0.0, pre_norm=pre_norm)
    randomize_norms(sub)
    lin = nn.Linear(D_MODEL, D_MODEL)
    x = 2 * torch.randn(2, 4, D_MODEL) + 1
    ln = lambda t: F.layer_norm(t, (D_MODEL,), sub.norm.weight, sub.norm.bias, eps=1e-5)
    expected = x + lin(ln(x)) if pre_norm else ln(x + lin(x))
    assert_close(sub(x, lin), expected)


def test_sublayer_connection_dropout_only_on_sublayer_output():
    torch.manual_seed(0)
    x = torch.randn(2, 4, D_MODEL)
    zero = lambda t: torch.zeros_like(t)
    pre = SublayerConnection(D_MODEL, dropout=0.9, pre_norm=True).train()
    post = SublayerConnection(D_MODEL, dropout=0.9, pre_norm=False).train()
    assert_close(pre(x, zero), x)  # residual path untouched by dropout
    assert_close(post(x, zero), F.layer_norm(x, (D_MODEL,)))


@pytest.mark.parametrize("pre_norm", [False, True])
def test_encoder_layer_matches_torch(batch, pre_norm):
    x, ids = batch
    torch.manual_seed(1)
    ours = EncoderLayer(opts(dropout=0.0, pre_norm=pre_norm))
    randomize_norms(ours)
    ref = torch_layer(ours, pre_norm).train()  # train mode (dropout 0): no fused fast path
    expected = ref(x, src_key_padding_mask=(ids == 0))
    assert_close(ours(x, padding_mask(ids, 0)), expected, atol=1e-5, rtol=1e-4)
    assert_close(ours(x), ref(x), atol=1e-5, rtol=1e-4)  # and without a mask


@pytest.mark.parametrize("pre_norm", [False, True])
def test_encoder_stack_matches_torch_layers(batch, pre_norm):
    x, ids = batch
    torch.manual_seed(2)
    enc = Encoder(opts(dropout=0.0, pre_norm=pre_norm), n_layers=3)
    randomize_norms(enc)
    mask = padding_mask(ids, 0)
    expected = x
    for layer in enc.layers:
        expected = torch_layer(layer, pre_norm).train()(expected, src_key_padding_mask=(ids == 0))
    if pre_norm:
        expected = F.layer_norm(expected, (D_MODEL,), enc.norm.weight, enc.norm.bias)
    out = enc(x, mask)
    assert out.shape == x.shape
    assert_close(out, expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("pre_norm", [False, True])
def test_padding_does_not_change_real_positions(batch, pre_norm):
    x, ids = batch
    torch.manual_seed(3)
    enc = Encoder(opts(dropout=0.0, pre_norm=pre_norm), n_layers=2)
    mask = padding_mask(ids, 0)
    junk = x.clone()
    junk[ids == 0] = 50 * torch.randn(int((ids == 0).sum()), D_MODEL)
    real = ids != 0
    assert_close(enc(junk, mask)[real], enc(x, mask)[real])
    # a sentence alone, unpadded, gives the same outputs as inside the padded batch
    alone = enc(x[1:2, :3], padding_mask(ids[1:2, :3], 0))
    assert_close(alone[0], enc(x, mask)[1, :3], atol=1e-5, rtol=1e-4)


def test_encoder_without_positions_is_permutation_equivariant(batch):
    x, _ = batch
    torch.manual_seed(4)
    enc = Encoder(opts(dropout=0.0), n_layers=2)
    perm = torch.tensor([4, 0, 5, 2, 1, 3])
    assert_close(enc(x[:, perm]), enc(x)[:, perm], atol=1e-5, rtol=1e-4)


def test_encoder_fast_path_equals_explicit(batch):
    x, ids = batch
    torch.manual_seed(5)
    slow = Encoder(opts(dropout=0.0), n_layers=2)
    fast = Encoder(opts(dropout=0.0, fast_attention=True), n_layers=2)
    fast.load_state_dict(slow.state_dict())
    mask = padding_mask(ids, 0)
    assert_close(fast(x, mask), slow(x, mask), atol=1e-5, rtol=1e-4)


def test_dropout_in_training_only(batch):
    x, ids = batch
    torch.manual_seed(6)
    layer = EncoderLayer(opts(dropout=0.5))
    plain = EncoderLayer(opts(dropout=0.0))
    plain.load_state_dict(layer.state_dict())
    layer.train()
    assert not torch.allclose(layer(x), layer(x))  # training: random dropout masks
    layer.eval()
    plain.eval()
    assert_close(layer(x), plain(x))  # evaluation: no dropout at all


@pytest.mark.parametrize("stack", [False, True])
def test_ffn_dropout_is_its_own_rate(batch, stack):
    "ffn_dropout drops inside the FFN only; None follows dropout; the stack hands it to every layer."
    x, ids = batch
    make = (lambda **kw: Encoder(opts(**kw), n_layers=2)) if stack else (lambda **kw: EncoderLayer(opts(**kw)))
    ffns = lambda m: [m.ffn] if not stack else [layer.ffn for layer in m.layers]
    torch.manual_seed(7)
    only_ffn = make(dropout=0.0, ffn_dropout=0.5).train()  # all randomness comes from inside the FFN
    assert not torch.allclose(only_ffn(x), only_ffn(x))
    no_ffn = make(dropout=0.5, ffn_dropout=0.0).train()  # the FFNs are deterministic, the sublayers are not
    h = torch.randn(3, 6, D_MODEL)
    for ffn in ffns(no_ffn):
        assert_close(ffn(h), ffn.eval()(h))
        ffn.train()
    assert not torch.allclose(no_ffn(x), no_ffn(x))
    follows = make(dropout=0.3)
    assert all(ffn.dropout.p == 0.3 for ffn in ffns(follows))


def test_encoder_layers_are_independent():
    enc = Encoder(opts(), n_layers=2)
    assert enc.layers[0].ffn.w_1.weight.data_ptr() != enc.layers[1].ffn.w_1.weight.data_ptr()
    assert isinstance(enc.norm, nn.Identity)
    assert isinstance(Encoder(opts(pre_norm=True), n_layers=2).norm, nn.LayerNorm)


def test_layer_options_are_named_once_and_frozen():
    "The defaults are the paper's layer; the object cannot be changed after the layers read it."
    o = LayerOptions(512, 8, 2048)
    assert (o.dropout, o.attn_dropout, o.ffn_dropout, o.pre_norm, o.fast_attention) == (
        0.1,
        0.0,
        None,
        False,
        False,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.dropout = 0.3
    layer = EncoderLayer(opts(attn_dropout=0.2, ffn_dropout=0.4, pre_norm=True, fast_attention=True))
    assert (layer.self_attn.dropout, layer.ffn.dropout.p, layer.self_attn.fast) == (0.2, 0.4, True)
    assert all(s.pre_norm and s.dropout.p == 0.1 for s in layer.sublayers)


def test_parameter_names_are_the_saved_models():
    "Checkpoints name parameters by module path: the options object must not change them."
    names = set(Encoder(opts(pre_norm=True), n_layers=2).state_dict())
    assert {
        "layers.1.self_attn.w_q.weight",
        "layers.0.ffn.w_2.bias",
        "layers.1.sublayers.1.norm.weight",
        "norm.weight",
    } <= names
    assert len(names) == 2 * (4 * 2 + 2 * 2 + 2 * 2) + 2
