"""Tests for transformer.embeddings: closed formulas and properties, never the module's own output."""

import math

import pytest
import torch
from torch.testing import assert_close

from transformer.embeddings import Embeddings, PositionalEncoding, sinusoidal_encoding


def reference_encoding(max_len, d_model):
    "PE written out entry by entry with math.sin / math.cos, in float64."
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    for pos in range(max_len):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe


def offset_map(k, d_model):
    "Block-diagonal rotation M_k with PE(pos + k) = M_k PE(pos)."
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        a = k / 10000 ** (2 * i / d_model)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor(
            [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
        )
    return m


@pytest.mark.parametrize("max_len,d_model", [(1, 2), (50, 16), (30, 64)])
def test_sinusoidal_encoding_matches_closed_formula(max_len, d_model):
    pe = sinusoidal_encoding(max_len, d_model)
    assert pe.shape == (max_len, d_model) and pe.dtype == torch.float32
    assert_close(pe.double(), reference_encoding(max_len, d_model), atol=1e-5, rtol=0)


def test_sinusoidal_encoding_bounded_constant_norm_and_unique():
    pe = sinusoidal_encoding(500, 32)
    assert pe.abs().max() <= 1
    assert_close(pe.norm(dim=-1), torch.full((500,), math.sqrt(16)))
    dist = torch.cdist(pe, pe) + torch.eye(500) * 1e9
    assert dist.min() > 0.5


@pytest.mark.parametrize("k", [1, 3, 17, 100])
def test_fixed_offset_is_a_fixed_linear_map(k):
    d_model = 16
    pe = sinusoidal_encoding(300, d_model).double()
    m_k = offset_map(k, d_model)
    # PE(pos + k) = M_k PE(pos) for every pos, with the same M_k
    assert_close(pe[:-k] @ m_k.T, pe[k:], atol=1e-4, rtol=0)
    # M_k is a rotation (orthogonal), and M_k M_j = M_{k+j}: offsets compose
    assert_close(m_k @ m_k.T, torch.eye(d_model, dtype=torch.float64))
    assert_close(m_k @ offset_map(5, d_model), offset_map(k + 5, d_model))


def test_paper_sizes_formula_and_offset_map():
    "d_model = 512 and 5000 positions: float32 rounding of pos * omega stays below 1e-3."
    d_model, n = 512, 5000
    pe = sinusoidal_encoding(n, d_model).double()
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    omega = torch.tensor([10000 ** (-2 * i / d_model) for i in range(d_model // 2)], dtype=torch.float64)
    assert_close(pe[:, 0::2], torch.sin(pos * omega), atol=1e-3, rtol=0)
    assert_close(pe[:, 1::2], torch.cos(pos * omega), atol=1e-3, rtol=0)
    for k in (1, 1000):
        assert_close(pe[:-k] @ offset_map(k, d_model).T, pe[k:], atol=2e-3, rtol=0)


def test_offset_map_fails_for_a_wrong_encoding():
    "The offset property is specific: an encoding with sin and cos in separate halves breaks it."
    pe = sinusoidal_encoding(100, 16).double()
    halves = torch.cat([pe[:, 0::2], pe[:, 1::2]], dim=1)  # [sin ... | cos ...] layout
    assert not torch.allclose(halves[:-3] @ offset_map(3, 16).T, halves[3:], atol=1e-2)


def test_dot_product_depends_on_offset_only():
    d_model = 32
    pe = sinusoidal_encoding(400, d_model).double()
    omega = torch.tensor([10000 ** (-2 * i / d_model) for i in range(d_model // 2)], dtype=torch.float64)
    for k in [0, 1, 5, 40]:
        dots = (pe[: -k or None] * pe[k:]).sum(-1)  # PE(pos) . PE(pos+k) for every pos
        assert_close(dots, torch.cos(omega * k).sum().expand_as(dots), atol=1e-4, rtol=0)


def test_embeddings_lookup_scaled_by_sqrt_d_model():
    torch.manual_seed(0)
    emb = Embeddings(11, 9, padding_idx=0)
    ids = torch.tensor([[3, 0, 10], [1, 1, 2]])
    out = emb(ids)
    assert out.shape == (2, 3, 9)
    expected = torch.stack([torch.stack([emb.lut.weight[i] for i in row]) for row in ids]) * 3.0
    assert_close(out, expected)
    assert (out[0, 1] == 0).all()  # padding row is zero
    out.sum().backward()
    assert (emb.lut.weight.grad[0] == 0).all()  # and gets no gradient


def test_positional_encoding_adds_table_in_eval():
    torch.manual_seed(0)
    pos = PositionalEncoding(8, dropout=0.5, max_len=20).eval()
    x = torch.randn(3, 7, 8)
    assert_close(pos(x).double(), x.double() + reference_encoding(7, 8), atol=1e-5, rtol=0)


@pytest.mark.parametrize("start", [0, 1, 5, 12])
def test_positional_encoding_start_equals_slicing(start):
    torch.manual_seed(0)
    pos = PositionalEncoding(8, dropout=0.0, max_len=20)
    full = torch.randn(2, 16, 8)
    n = 4
    assert_close(pos(full[:, start : start + n], start=start), pos(full)[:, start : start + n])
    assert_close(pos(torch.zeros(1, n, 8), start=start)[0], sinusoidal_encoding(20, 8)[start : start + n])


def test_positional_encoding_dropout_after_sum():
    torch.manual_seed(0)
    p = 0.5
    pos = PositionalEncoding(8, dropout=p, max_len=20).train()
    x = torch.randn(4, 10, 8)
    y = pos(x)
    kept = y != 0
    assert 0.3 < kept.float().mean() < 0.7
    total = x + sinusoidal_encoding(10, 8)
    assert_close(y[kept], total[kept] / (1 - p))  # dropout of the sum, not of x alone


def test_positional_encoding_is_a_buffer_not_a_parameter():
    pos = PositionalEncoding(8, dropout=0.1, max_len=20)
    assert list(pos.parameters()) == []  # nothing to learn
    assert "pe" not in pos.state_dict()  # not saved: it is recomputed
    assert_close(pos.pe, sinusoidal_encoding(20, 8))
    assert pos.to(torch.float64).pe.dtype == torch.float64  # but it moves with the module


def test_positional_encoding_too_long_raises():
    pos = PositionalEncoding(8, dropout=0.0, max_len=10)
    pos(torch.zeros(1, 10, 8))
    with pytest.raises(ValueError):
        pos(torch.zeros(1, 11, 8))
    with pytest.raises(ValueError):
        pos(torch.zeros(1, 3, 8), start=8)
