"""Tests for transformer.attention against independent references: PyTorch's own
F.scaled_dot_product_attention, brute-force loops in plain Python, and properties."""

import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from transformer.attention import attention_weights, causal_mask, padding_mask, scaled_dot_product_attention

B, H, LEN, D_K, D_V = 2, 3, 5, 8, 6


def make_mask(kind):
    "Boolean masks (True = may attend) broadcastable to (B, H, LEN, LEN); none of them has an empty row."
    right_padded = torch.tensor([[4, 7, 2, 9, 5], [3, 8, 6, 0, 0]])  # (B, LEN), 0 = padding
    return {
        "none": None,
        "padding": padding_mask(right_padded, 0),  # (B, 1, 1, LEN)
        "causal": causal_mask(LEN),  # (1, 1, LEN, LEN)
        "padding_and_causal": padding_mask(right_padded, 0) & causal_mask(LEN),
    }[kind]


def qkv(dtype=torch.float32, seed=0, len_q=LEN, len_k=LEN):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, len_q, D_K, generator=g, dtype=dtype)
    k = torch.randn(B, H, len_k, D_K, generator=g, dtype=dtype)
    v = torch.randn(B, H, len_k, D_V, generator=g, dtype=dtype)
    return q, k, v


def outputs_and_grads(fn, q, k, v):
    "fn(q, k, v) and the gradients of a fixed random loss with respect to q, k and v."
    q, k, v = (t.clone().requires_grad_() for t in (q, k, v))
    out = fn(q, k, v)
    probe = torch.randn(out.shape, generator=torch.Generator().manual_seed(99), dtype=out.dtype)
    grads = torch.autograd.grad((out * probe).sum(), (q, k, v))
    return out.detach(), grads


def brute_force_attention(q, k, v, mask=None):
    "The formula with Python loops and math.exp, float64; a query with no visible key gets zeros."
    *lead, len_q, d_k = q.shape
    len_k, d_v = v.shape[-2:]
    out = torch.zeros(*lead, len_q, d_v, dtype=torch.float64)
    m = torch.ones(*lead, len_q, len_k, dtype=torch.bool) if mask is None else mask.expand(*lead, len_q, len_k)
    for idx in torch.cartesian_prod(*[torch.arange(n) for n in lead]).view(-1, len(lead)).tolist():
        for i in range(len_q):
            visible = [j for j in range(len_k) if m[(*idx, i, j)]]
            if not visible:
                continue
            scores = {
                j: sum(q[(*idx, i, c)].item() * k[(*idx, j, c)].item() for c in range(d_k)) / math.sqrt(d_k)
                for j in visible
            }
            top = max(scores.values())
            exps = {j: math.exp(s - top) for j, s in scores.items()}
            total = sum(exps.values())
            for c in range(d_v):
                out[(*idx, i, c)] = sum(exps[j] / total * v[(*idx, j, c)].item() for j in visible)
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", ["none", "padding", "causal", "padding_and_causal"])
def test_matches_torch_sdpa_values_and_gradients(kind, dtype):
    mask = make_mask(kind)
    q, k, v = qkv(dtype)
    ours, ours_grads = outputs_and_grads(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask), q, k, v)
    ref, ref_grads = outputs_and_grads(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask), q, k, v)
    assert ours.shape == (B, H, LEN, D_V) and ours.dtype == dtype
    assert_close(ours, ref)
    for name, a, b in zip("qkv", ours_grads, ref_grads):
        assert_close(a, b, msg=lambda m: f"gradient w.r.t. {name}: {m}")


def test_matches_torch_sdpa_cross_lengths():
    q, k, v = qkv(len_q=3, len_k=7)
    mask = padding_mask(torch.tensor([[1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 0, 0, 0]]), 0)
    assert_close(scaled_dot_product_attention(q, k, v, mask), F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


def test_matches_brute_force_loops_including_empty_rows():
    q, k, v = qkv(torch.float64, seed=1)
    mask = torch.rand(B, 1, LEN, LEN, generator=torch.Generator().manual_seed(2)) > 0.5
    mask[0, 0, 1] = False  # an empty row
    mask[1, 0, 4] = True  # a full row
    for fast in (False, True):
        assert_close(scaled_dot_product_attention(q, k, v, mask, fast=fast), brute_force_attention(q, k, v, mask))
    assert_close(scaled_dot_product_attention(q, k, v), brute_force_attention(q, k, v))


def test_attention_weights_are_distributions_with_zeros_at_masked_keys():
    q, k, _ = qkv(torch.float64)
    mask = make_mask("padding_and_causal")
    w = attention_weights(q, k, mask)  # (B, H, LEN, LEN)
    assert w.shape == (B, H, LEN, LEN)
    assert (w[~mask.expand_as(w)] == 0).all() and (w >= 0).all()
    assert_close(w.sum(-1), torch.ones(B, H, LEN, dtype=torch.float64))
    scores = q @ k.transpose(-2, -1) / math.sqrt(D_K)
    assert_close(attention_weights(q, k), torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True))


def test_scale_is_one_over_sqrt_d_k():
    # padding q and k with zeros to 4 d_k leaves every dot product unchanged but doubles sqrt(d_k)
    q, k, _ = qkv(torch.float64)
    wide = lambda t: torch.cat([t, torch.zeros(*t.shape[:-1], 3 * D_K, dtype=t.dtype)], dim=-1)
    assert_close(attention_weights(wide(q), wide(k)), attention_weights(q / 2, k))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", ["none", "padding", "causal", "padding_and_causal", "empty_rows", "all_masked"])
def test_fast_path_equals_explicit_path(kind, dtype):
    if kind == "empty_rows":  # left padding and causal: rows 0 (and 1) see nothing
        mask = padding_mask(torch.tensor([[0, 0, 7, 3, 9], [0, 4, 4, 2, 1]]), 0) & causal_mask(LEN)
    elif kind == "all_masked":
        mask = torch.zeros(B, 1, 1, LEN, dtype=torch.bool)
    else:
        mask = make_mask(kind)
    q, k, v = qkv(dtype, seed=3)
    explicit, g_explicit = outputs_and_grads(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask), q, k, v)
    fast, g_fast = outputs_and_grads(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask, fast=True), q, k, v)
    assert_close(fast, explicit)
    for a, b in zip(g_fast, g_explicit):
        assert_close(a, b)
        assert a.isfinite().all() and b.isfinite().all()
    if mask is not None:
        empty = ~mask.any(-1).expand(B, H, LEN)  # (B, H, LEN) queries with no visible key
        assert (explicit[empty] == 0).all() and (fast[empty] == 0).all()
        if kind == "empty_rows":
            assert empty[:, :, 0].all() and not empty[:, :, 2:].any()


@pytest.mark.parametrize("fast", [False, True])
def test_empty_rows_give_zero_weights_output_and_gradient_without_nan(fast):
    mask = padding_mask(torch.tensor([[0, 0, 7, 3, 9]]), 0) & causal_mask(5)  # (1, 1, 5, 5), rows 0, 1 empty
    q, k, v = (torch.randn(1, 2, 5, 4, requires_grad=True) for _ in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():  # raises if any backward step produces NaN
            out = scaled_dot_product_attention(q, k, v, mask, fast=fast)
            out.pow(2).sum().backward()
    assert (out[:, :, :2] == 0).all() and out[:, :, 2:].abs().sum() > 0
    assert (q.grad[:, :, :2] == 0).all()
    assert all(t.grad.isfinite().all() for t in (q, k, v))
    w = attention_weights(q, k, mask)
    assert (w[:, :, :2] == 0).all() and not w.isnan().any()


@pytest.mark.parametrize("fast", [False, True])
def test_masked_keys_have_no_influence(fast):
    q, k, v = qkv()
    mask = make_mask("padding")  # sentence 1: keys 3, 4 are padding
    k2, v2 = k.clone(), v.clone()
    k2[1, :, 3:], v2[1, :, 3:] = 1e3, -1e3
    assert_close(
        scaled_dot_product_attention(q, k2, v2, mask, fast=fast),
        scaled_dot_product_attention(q, k, v, mask, fast=fast),
    )


def test_gradcheck_float64():
    q, k, v = (t.requires_grad_() for t in qkv(torch.float64, seed=4))
    mask = padding_mask(torch.tensor([[0, 0, 7, 3, 9], [1, 4, 4, 2, 0]]), 0) & causal_mask(LEN)
    assert torch.autograd.gradcheck(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask), (q, k, v))


@pytest.mark.parametrize("fast", [False, True])
def test_dropout_is_random_and_unbiased(fast):
    g = torch.Generator().manual_seed(5)
    q, k, v = (
        torch.randn(1, 4, 3, generator=g),
        torch.randn(1, 6, 3, generator=g),
        torch.randn(1, 6, 2, generator=g),
    )
    n = 20000
    big = [t.expand(n, *t.shape[1:]) for t in (q, k, v)]  # n copies, each with its own dropout draw
    torch.manual_seed(0)
    dropped = scaled_dot_product_attention(*big, dropout_p=0.5, fast=fast)  # (n, 4, 2)
    exact = scaled_dot_product_attention(q, k, v)
    assert not torch.allclose(dropped[0], dropped[1])
    assert_close(dropped.mean(0), exact[0], atol=0.03, rtol=0)
    assert torch.equal(
        scaled_dot_product_attention(q, k, v, dropout_p=0.0, fast=fast),
        scaled_dot_product_attention(q, k, v, dropout_p=0.0, fast=fast),
    )


@pytest.mark.parametrize("size", [1, 2, 3, 6])
def test_causal_mask_brute_force(size):
    m = causal_mask(size)
    assert m.shape == (1, 1, size, size) and m.dtype == torch.bool
    for i in range(size):
        for j in range(size):
            assert m[0, 0, i, j].item() == (j <= i)
    assert causal_mask(size, device="cpu").device.type == "cpu"


@pytest.mark.parametrize("pad_id", [0, 1, 9])
def test_padding_mask_brute_force(pad_id):
    ids = torch.tensor([[5, 7, 2, 0, 0], [3, 0, 4, 1, 1], [9, 9, 9, 9, 9]])
    m = padding_mask(ids, pad_id)
    assert m.shape == (3, 1, 1, 5) and m.dtype == torch.bool
    for b in range(3):
        for j in range(5):
            assert m[b, 0, 0, j].item() == (ids[b, j].item() != pad_id)
