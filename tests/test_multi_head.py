"""Tests for transformer.multi_head against torch.nn.MultiheadAttention with copied weights,
brute-force loops and properties."""

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from transformer.attention import causal_mask, padding_mask
from transformer.multi_head import MultiHeadAttention

D_MODEL, H = 16, 4


def pair(bias=True, fast=False, seed=0, d_model=D_MODEL, h=H):
    "Our module with random (non-zero) weights and biases, and nn.MultiheadAttention holding a copy."
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d_model, h, bias=bias, fast=fast).eval()
    for p in ours.parameters():
        nn.init.normal_(p, std=0.3)
    ref = nn.MultiheadAttention(d_model, h, bias=bias, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        ref.out_proj.weight.copy_(ours.w_o.weight)
        if bias:
            ref.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
            ref.out_proj.bias.copy_(ours.w_o.bias)
    return ours, ref


SRC_IDS = torch.tensor([[4, 7, 2, 9, 5, 3], [3, 8, 6, 0, 0, 0]])  # (batch=2, len_k=6), 0 = padding


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_self_attention_matches_torch(fast, bias):
    ours, ref = pair(bias=bias, fast=fast)
    x = torch.randn(2, 6, D_MODEL)
    with torch.no_grad():
        assert_close(ours(x, x, x), ref(x, x, x)[0])
        assert_close(ours(x, x, x, causal_mask(6)), ref(x, x, x, attn_mask=~causal_mask(6)[0, 0])[0])
        assert_close(ours(x, x, x, padding_mask(SRC_IDS, 0)), ref(x, x, x, key_padding_mask=(SRC_IDS == 0))[0])


@pytest.mark.parametrize("fast", [False, True])
def test_cross_attention_with_padding_matches_torch(fast):
    ours, ref = pair(fast=fast, seed=1)
    query, memory = torch.randn(2, 3, D_MODEL), torch.randn(2, 6, D_MODEL)  # len_q = 3 != len_k = 6
    ours.store_weights = True
    with torch.no_grad():
        out = ours(query, memory, memory, padding_mask(SRC_IDS, 0))
        expected, expected_weights = ref(
            query, memory, memory, key_padding_mask=(SRC_IDS == 0), average_attn_weights=False
        )
    assert out.shape == (2, 3, D_MODEL)
    assert_close(out, expected)
    assert ours.weights.shape == (2, H, 3, 6)
    assert_close(ours.weights, expected_weights)


def test_distinct_key_and_value_match_torch():
    ours, ref = pair(seed=7)
    query, key, value = torch.randn(2, 3, D_MODEL), torch.randn(2, 6, D_MODEL), torch.randn(2, 6, D_MODEL)
    with torch.no_grad():
        assert_close(
            ours(query, key, value, padding_mask(SRC_IDS, 0)),
            ref(query, key, value, key_padding_mask=(SRC_IDS == 0))[0],
        )


def test_gradients_match_torch():
    ours, ref = pair(seed=2)
    query, memory = torch.randn(2, 3, D_MODEL), torch.randn(2, 6, D_MODEL)
    mask = padding_mask(SRC_IDS, 0)
    probe = torch.randn(2, 3, D_MODEL)
    q1, m1 = query.clone().requires_grad_(), memory.clone().requires_grad_()
    (ours(q1, m1, m1, mask) * probe).sum().backward()
    q2, m2 = query.clone().requires_grad_(), memory.clone().requires_grad_()
    (ref(q2, m2, m2, key_padding_mask=(SRC_IDS == 0))[0] * probe).sum().backward()
    assert_close(q1.grad, q2.grad)
    assert_close(m1.grad, m2.grad)
    in_grad = torch.cat([ours.w_q.weight.grad, ours.w_k.weight.grad, ours.w_v.weight.grad])
    assert_close(in_grad, ref.in_proj_weight.grad)
    assert_close(torch.cat([ours.w_q.bias.grad, ours.w_k.bias.grad, ours.w_v.bias.grad]), ref.in_proj_bias.grad)
    assert_close(ours.w_o.weight.grad, ref.out_proj.weight.grad)


def test_parameter_count():
    count = lambda m: sum(p.numel() for p in m.parameters())
    assert count(MultiHeadAttention(512, 8)) == 4 * 512**2 + 4 * 512 == 1_050_624
    assert count(MultiHeadAttention(512, 1)) == 1_050_624  # one full-width head
    assert count(MultiHeadAttention(512, 8, bias=False)) == 4 * 512**2
    assert count(MultiHeadAttention(512, 8)) == count(nn.MultiheadAttention(512, 8))


def test_store_weights_are_distributions_over_unmasked_keys():
    ours, _ = pair(seed=3)
    query, memory = torch.randn(2, 3, D_MODEL), torch.randn(2, 6, D_MODEL)
    mask = padding_mask(SRC_IDS, 0)  # (2, 1, 1, 6)
    ours(query, memory, memory, mask)
    assert ours.weights is None  # off by default
    ours.store_weights = True
    ours(query, memory, memory, mask)
    w = ours.weights  # (2, H, 3, 6)
    assert w.shape == (2, H, 3, 6) and not w.requires_grad
    real = mask.expand_as(w)
    assert (w[~real] == 0).all()
    assert_close(w.sum(-1), torch.ones(2, H, 3))
    assert_close((w * real).sum(-1), torch.ones(2, H, 3))


@pytest.mark.parametrize("d_model,h", [(10, 3), (512, 6), (7, 2)])
def test_d_model_not_divisible_by_h_raises(d_model, h):
    with pytest.raises(ValueError):
        MultiHeadAttention(d_model, h)


def test_attributes():
    m = MultiHeadAttention(24, 6, dropout=0.1, fast=True)
    assert (m.d_model, m.h, m.d_k, m.dropout, m.fast, m.store_weights, m.weights) == (
        24,
        6,
        4,
        0.1,
        True,
        False,
        None,
    )
    for lin in (m.w_q, m.w_k, m.w_v, m.w_o):
        assert isinstance(lin, nn.Linear) and lin.weight.shape == (24, 24)


def test_split_and_merge_heads_brute_force():
    m = MultiHeadAttention(12, 3)
    x = torch.randn(2, 5, 12)
    s = m.split_heads(x)
    assert s.shape == (2, 3, 5, 4)
    for b in range(2):
        for i in range(3):
            for n in range(5):
                assert torch.equal(s[b, i, n], x[b, n, i * 4 : (i + 1) * 4])
    assert torch.equal(m.merge_heads(s), x)
    heads = torch.randn(2, 3, 5, 4)
    merged = m.merge_heads(heads)
    assert merged.shape == (2, 5, 12)
    for i in range(3):
        assert torch.equal(merged[..., i * 4 : (i + 1) * 4], heads[:, i])


def test_project_kv_and_cache_callable():
    ours, _ = pair(seed=4)
    x = torch.randn(2, 5, D_MODEL)
    k, v = ours.project_kv(x, x)
    assert k.shape == v.shape == (2, H, 5, D_MODEL // H)
    with torch.no_grad():
        assert_close(k, ours.split_heads(ours.w_k(x)))
        assert_close(v, ours.split_heads(ours.w_v(x)))
        full = ours(x, x, x, causal_mask(5))  # (2, 5, D_MODEL)
        calls = []

        def cache(module, key, value):  # chapter 8's contract: return the whole prefix's k, v
            calls.append((module, key.shape, value.shape))
            return module.project_kv(x, x)

        last = ours(x[:, -1:], x[:, -1:], x[:, -1:], cache=cache)  # the newest token attends to all 5
    assert calls == [(ours, (2, 1, D_MODEL), (2, 1, D_MODEL))]
    assert_close(last, full[:, -1:])


def test_dropout_only_in_training():
    ours, _ = pair(seed=5)
    ours.dropout = 0.5
    x = torch.randn(2, 6, D_MODEL)
    with torch.no_grad():
        ours.eval()
        a, b = ours(x, x, x), ours(x, x, x)
        ours.dropout = 0.0
        assert torch.equal(a, b) and torch.equal(a, ours(x, x, x))
        ours.dropout = 0.5
        ours.train()
        assert not torch.allclose(ours(x, x, x), a)


def test_fast_equals_explicit_with_masks():
    ours, _ = pair(seed=6)
    fast = MultiHeadAttention(D_MODEL, H, fast=True)
    fast.load_state_dict(ours.state_dict())
    x = torch.randn(2, 6, D_MODEL)
    left = padding_mask(torch.tensor([[0, 0, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6]]), 0) & causal_mask(6)  # empty rows
    with torch.no_grad():
        for mask in (None, padding_mask(SRC_IDS, 0), causal_mask(6), left):
            assert_close(fast(x, x, x, mask), ours(x, x, x, mask))
