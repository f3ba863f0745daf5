"""The figures' mathematics against independent computations."""

import math

import numpy as np
import pytest

from posviz.figures import attention_cost as cost
from posviz.figures import parameter_budget as budget
from posviz.figures import query_reach as reach
from posviz.maths import encoding

# --- 710: sinusoidal encoding -------------------------------------------------


@pytest.mark.parametrize("d_model", [2, 16, 64, 130])
def test_encoding_matches_the_definition_entry_by_entry(d_model):
    positions = [0, 1, 7, 33.5, 100]
    table = encoding.encoding(positions, d_model)
    assert table.shape == (len(positions), d_model)
    for row, p in enumerate(positions):
        for i in range(d_model // 2):
            omega = 10000 ** (-2 * i / d_model)
            assert table[row, 2 * i] == pytest.approx(math.sin(p * omega), abs=1e-12)
            assert table[row, 2 * i + 1] == pytest.approx(math.cos(p * omega), abs=1e-12)


@pytest.mark.parametrize("d_model", [1, 3, 0, -4])
def test_odd_or_tiny_widths_are_refused(d_model):
    with pytest.raises(ValueError, match="d_model must be an even number"):
        encoding.frequencies(d_model)


def test_fastest_hand_turns_once_every_two_pi():
    assert encoding.frequencies(512)[0] == 1.0
    assert 2 * math.pi / encoding.frequencies(512)[0] == pytest.approx(6.283, abs=1e-3)
    assert np.all(np.diff(encoding.frequencies(512)) < 0)


@pytest.mark.parametrize("pos", [0, 5, 61])
def test_dot_product_from_rows_equals_the_closed_form(pos):
    d_model, ks = 96, np.arange(0, 40)
    from_rows = encoding.dot_from_rows(pos, ks, d_model)
    explicit = [
        np.einsum(
            "d,d->", encoding.encoding([pos], d_model)[0], encoding.encoding([pos + k], d_model)[0]
        )
        for k in ks
    ]
    closed = [
        sum(math.cos(10000 ** (-2 * i / d_model) * k) for i in range(d_model // 2)) for k in ks
    ]
    np.testing.assert_allclose(from_rows, explicit, atol=1e-10)
    np.testing.assert_allclose(encoding.dot_closed_form(ks, d_model), closed, atol=1e-10)
    np.testing.assert_allclose(from_rows, closed, atol=1e-9)


def test_dot_product_does_not_depend_on_pos():
    ks = np.arange(0, 50)
    curves = [encoding.dot_from_rows(pos, ks, 64) for pos in (0, 17, 99)]
    np.testing.assert_allclose(curves[0], curves[1], atol=1e-9)
    np.testing.assert_allclose(curves[0], curves[2], atol=1e-9)
    assert curves[0][0] == pytest.approx(32)  # |PE(p)|² = d_model / 2


def test_hand_speeds_do_not_depend_on_width():
    for d_model in (64, 128, 1024):
        omegas = encoding.frequencies(d_model)[encoding.hand_indices(d_model)]
        np.testing.assert_allclose(
            omegas, [1, 10000 ** (-1 / 16), 10000 ** (-1 / 8), 10000 ** (-1 / 4)], rtol=1e-12
        )
    assert encoding.hand_indices(16) == sorted(set(encoding.hand_indices(16)))


# --- 96: parameter budget -----------------------------------------------------


def weight_shapes(d_model, d_ff, n_layers, vocab):
    """Every tensor of the model, written out like a state dict."""
    shapes = {"shared_embedding": (vocab, d_model)}

    def attention(prefix):
        for proj in "qkvo":
            shapes[f"{prefix}.w_{proj}"] = (d_model, d_model)
            shapes[f"{prefix}.b_{proj}"] = (d_model,)

    def feed_forward(prefix):
        shapes[f"{prefix}.w1"], shapes[f"{prefix}.b1"] = (d_model, d_ff), (d_ff,)
        shapes[f"{prefix}.w2"], shapes[f"{prefix}.b2"] = (d_ff, d_model), (d_model,)

    def norm(prefix):
        shapes[f"{prefix}.gain"], shapes[f"{prefix}.bias"] = (d_model,), (d_model,)

    for n in range(n_layers):
        attention(f"enc{n}.self"), norm(f"enc{n}.norm1")
        feed_forward(f"enc{n}.ff"), norm(f"enc{n}.norm2")
        attention(f"dec{n}.self"), norm(f"dec{n}.norm1")
        attention(f"dec{n}.cross"), norm(f"dec{n}.norm2")
        feed_forward(f"dec{n}.ff"), norm(f"dec{n}.norm3")
    return shapes


def role_of(name):
    if name == "shared_embedding":
        return "embedding"
    stack, part = name.split(".")[:2]
    if part.startswith("norm"):
        return "layer norm"
    side = "encoder" if stack.startswith("enc") else "decoder"
    kind = {"self": "self-attention", "cross": "cross-attention", "ff": "feed-forward"}[part]
    return f"{side} {kind}"


@pytest.mark.parametrize(
    "sizes",
    [(512, 2048, 6, 37000), (1024, 4096, 6, 37000), (64, 256, 1, 1000), (320, 1280, 3, 12345)],
)
def test_budget_matches_a_hand_count_of_weight_shapes(sizes):
    expected = dict.fromkeys(budget.ROLES, 0)
    for name, shape in weight_shapes(*sizes).items():
        expected[role_of(name)] += int(np.prod(shape))
    counts = budget.parameter_counts(*sizes)
    assert list(counts) == list(budget.ROLES)
    assert counts == expected


def test_base_model_facts_the_figure_must_show():
    counts = budget.parameter_counts(512, 2048, 6, 37000)
    total = sum(counts.values())
    assert total == 63_082_496
    assert counts["embedding"] / total == pytest.approx(0.30, abs=0.01)  # about a third
    share = budget.encoder_layer_share(512, 2048)
    assert share["feed-forward"] == pytest.approx(2 / 3, abs=0.002)
    assert sum(share.values()) == pytest.approx(1)


# --- 7256: attention cost -----------------------------------------------------


def test_entries_against_loops_with_clipping():
    k, m = 9, 40
    sides = [1, 5, 9, 20, 40, 64]
    got = cost.entries(sides, k, m)
    for n, side in enumerate(sides):
        pixels = side * side
        window = sum(min(k, side) ** 2 for _ in range(pixels))
        axial = sum(min(m, side) for _ in range(pixels)) * 2
        assert got["global"][n] == pixels * pixels
        assert got["window"][n] == window
        assert got["axial"][n] == axial


@pytest.mark.parametrize("k,m", [(8, 32), (4, 8), (16, 128)])
def test_window_and_axial_tie_where_k_squared_is_2m(k, m):
    got = cost.entries([256], k, m)
    assert got["window"][0] == got["axial"][0]
    assert cost.window_to_axial(k, m) == 1


# --- 4121: query reach --------------------------------------------------------


def attended_by(side, r, c, scheme, g):
    """The pixels query (r, c) attends to, from each scheme's definition."""
    seen = set()
    for y in range(side):
        for x in range(side):
            if scheme == "global":
                ok = True
            elif scheme == "local":
                ok = abs(y - r) <= g.window // 2 and abs(x - c) <= g.window // 2
            elif scheme == "block-1d":
                block = (r * side + c) // g.query_length
                index = y * side + x
                ok = (
                    block * g.query_length - g.memory_length <= index < (block + 1) * g.query_length
                )
            elif scheme == "block-2d":
                br, bc = r // g.block_height, c // g.block_width
                ok = (
                    br * g.block_height - g.memory_above <= y < (br + 1) * g.block_height
                    and bc * g.block_width - g.memory_side
                    <= x
                    < (bc + 1) * g.block_width + g.memory_side
                )
            else:
                assert scheme == "axial"
                ok = y == r or x == c
            if ok:
                seen.add((y, x))
    return seen


def composed_reach(side, r, c, scheme, layers, g):
    frontier = {(r, c)}
    for _ in range(layers):
        frontier = set().union(*(attended_by(side, y, x, scheme, g) for y, x in frontier))
    mask = np.zeros((side, side), dtype=bool)
    for y, x in frontier:
        mask[y, x] = True
    return mask


GEOMETRIES = [
    reach.Geometry(),
    reach.Geometry(
        window=5,
        query_length=5,
        memory_length=7,
        block_height=3,
        block_width=2,
        memory_above=1,
        memory_side=3,
    ),
]


@pytest.mark.parametrize("scheme", ["global", "local", "block-1d", "block-2d", "axial"])
@pytest.mark.parametrize("query", [(0, 0), (5, 6), (11, 0), (11, 11), (3, 10)])
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_reach_equals_mask_composition(scheme, query, geometry):
    side = 12
    for layers in (1, 2):
        expected = composed_reach(side, *query, scheme, layers, geometry)
        got = reach.reach(side, *query, scheme, layers, geometry)
        np.testing.assert_array_equal(got, expected)


def test_border_clips_local_and_block_sets_but_not_the_axial_cross():
    side = 16
    centre, corner = (8, 8), (0, 0)
    assert reach.reach(side, *centre, "local").sum() == 49
    assert reach.reach(side, *corner, "local").sum() == 16
    for scheme in ("block-1d", "block-2d"):
        assert reach.reach(side, *corner, scheme).sum() < reach.reach(side, *centre, scheme).sum()
    assert reach.reach(side, *corner, "axial").sum() == reach.reach(side, *centre, "axial").sum()
    assert reach.reach(side, *corner, "axial").sum() == 31
    assert reach.reach(side, *corner, "axial", layers=2).all()


def test_query_outside_the_image_is_refused():
    with pytest.raises(ValueError, match=r"query \(16, 0\) is outside a 16×16 image"):
        reach.reach(16, 16, 0, "local")


@pytest.mark.parametrize("scheme", [1, "window", "Axial", None])
def test_an_unknown_scheme_is_refused_with_the_names(scheme):
    with pytest.raises(ValueError) as caught:
        reach.reach(16, 0, 0, scheme)
    assert str(caught.value) == (
        f"scheme must be one of global, local, block-1d, block-2d, axial, not {scheme!r}"
    )
