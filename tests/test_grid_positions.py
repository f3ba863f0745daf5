"""Figure 2010: position on a grid of patches.

The 2-D sin-cos embedding is checked against MAE's construction (util/pos_embed.py of
facebookresearch/mae) written out below in float64; Swin's table entries against the
relative_position_index of its code; and the maps for the properties the page states:
the wrap-around neighbour of raster order, and the symmetries of each scheme.
"""

import itertools
import math

import numpy as np
import pytest

from posviz.figures import GridPositions
from posviz.figures import grid_positions as gp

GRIDS = range(4, 17)  # every g = S // P the sliders allow (checked below)


# --- MAE's reference, written out (their float32 made float64) ----------------------


def mae_1d(embed_dim: int, pos: np.ndarray) -> np.ndarray:
    """get_1d_sincos_pos_embed_from_grid: omega = 1/10000**(i/(D/2)), [sin | cos]."""
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega
    out = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def mae_2d(embed_dim: int, grid_size: int) -> np.ndarray:
    """get_2d_sincos_pos_embed: meshgrid(grid_w, grid_h), so grid[0] holds the column."""
    grid_h = np.arange(grid_size, dtype=np.float64)
    grid_w = np.arange(grid_size, dtype=np.float64)
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0).reshape([2, 1, grid_size, grid_size])
    emb_h = mae_1d(embed_dim // 2, grid[0])  # named h in MAE, but grid[0] is the column
    emb_w = mae_1d(embed_dim // 2, grid[1])
    return np.concatenate([emb_h, emb_w], axis=1)


@pytest.mark.parametrize("d", gp.WIDTHS)
@pytest.mark.parametrize("g", [4, 7, 14, 16])
def test_the_2d_embedding_is_maes(g, d):
    np.testing.assert_allclose(gp.sincos_2d(g, d), mae_2d(d, g), rtol=0, atol=1e-12)


def test_maes_first_half_is_the_column_and_its_frequencies_are_1_over_10000_to_2i_over_half():
    g, d = 5, 16
    table = gp.sincos_2d(g, d)
    half, quarter = d // 2, d // 4
    for r, c in itertools.product(range(g), repeat=2):
        row = table[r * g + c]
        for i in range(quarter):
            omega = 1 / 10000 ** (2 * i / half)
            assert row[i] == pytest.approx(math.sin(c * omega), abs=1e-12)
            assert row[quarter + i] == pytest.approx(math.cos(c * omega), abs=1e-12)
            assert row[half + i] == pytest.approx(math.sin(r * omega), abs=1e-12)
            assert row[half + quarter + i] == pytest.approx(math.cos(r * omega), abs=1e-12)


def test_a_width_the_2d_split_cannot_halve_twice_is_refused():
    with pytest.raises(ValueError, match="divisible by 4"):
        gp.sincos_2d(4, 18)
    assert all(d % 4 == 0 for d in gp.WIDTHS)


def test_the_raster_stand_in_is_the_transformers_encoding_of_the_raster_index():
    g, d = 6, 32
    table = gp.raster_1d(g, d)
    for p in range(g * g):
        for i in range(d // 2):
            omega = 10000 ** (-2 * i / d)
            assert table[p, 2 * i] == pytest.approx(math.sin(p * omega), abs=1e-12)
            assert table[p, 2 * i + 1] == pytest.approx(math.cos(p * omega), abs=1e-12)


# --- the maps -------------------------------------------------------------------------


@pytest.mark.parametrize("d", gp.WIDTHS)
@pytest.mark.parametrize("g", GRIDS)
def test_raster_order_makes_the_end_of_the_row_above_a_neighbour(g, d):
    """From the first patch of a row, the last patch of the row above is one step away in
    raster order: as alike as the next patch in the row, more alike than the patch above
    (g steps away). The 2-D split puts it (1, g − 1) away, less alike than the patch above."""
    raster, two_d = gp.raster_1d(g, d), gp.sincos_2d(g, d)
    for r in range(1, g):
        flat = gp.cosine_map(raster, g, r, 0)
        assert flat[r - 1, g - 1] == pytest.approx(flat[r, 1], abs=1e-12)
        assert flat[r - 1, g - 1] > flat[r - 1, 0]
        grid = gp.cosine_map(two_d, g, r, 0)
        assert grid[r - 1, g - 1] < grid[r - 1, 0]
        assert grid[r - 1, 0] == pytest.approx(grid[r, 1], abs=1e-12)  # one step either way


def test_the_figures_readout_names_the_wrap_neighbour():
    figure = GridPositions()
    assert (figure.row, figure.col, figure.grid()) == (3, 0, 14)
    assert figure.before() == (2, 13)
    sims = figure.similarities()
    assert sims[2, 13] > sims[2, 0]
    assert f"**{sims[2, 13]:.2f}**" in figure.readout() and "end of the row above" in (
        figure.readout()
    )
    figure.scheme = "sincos"
    sims = figure.similarities()
    assert sims[2, 13] < sims[2, 0]


@pytest.mark.parametrize("d", [16, 64, 768])
def test_similarity_is_symmetric_and_one_at_the_patch(d):
    g = 9
    for table in (gp.raster_1d(g, d), gp.sincos_2d(g, d)):
        full = np.array([gp.cosine_map(table, g, *divmod(p, g)).ravel() for p in range(g * g)])
        np.testing.assert_allclose(full, full.T, atol=1e-12)
        np.testing.assert_allclose(np.diag(full), 1.0, atol=1e-12)


@pytest.mark.parametrize("d", [16, 64, 256])
def test_2d_similarity_depends_on_the_offset_alone_evenly_and_alike_on_both_axes(d):
    g = 8
    table = gp.sincos_2d(g, d)
    maps = {(r, c): gp.cosine_map(table, g, r, c) for r, c in itertools.product(range(g), repeat=2)}
    by_offset = {}
    for (r, c), found in maps.items():
        for kr, kc in itertools.product(range(g), repeat=2):
            value = found[kr, kc]
            dr, dc = kr - r, kc - c
            by_offset.setdefault((dr, dc), value)
            assert value == pytest.approx(by_offset[(dr, dc)], abs=1e-12)  # translation
    for (dr, dc), value in by_offset.items():
        assert value == pytest.approx(by_offset[(-dr, -dc)], abs=1e-12)  # cos is even
        assert value == pytest.approx(by_offset[(dc, dr)], abs=1e-12)  # rows as columns
        assert value == pytest.approx(by_offset[(dr, -dc)], abs=1e-12)  # each axis even alone
        # Half the dimensions per axis: the mean of two 1-D similarities.
        one_d = [
            sum(math.cos(k * 10000 ** (-4 * i / d)) for i in range(d // 4)) / (d // 4)
            for k in (dr, dc)
        ]
        assert value == pytest.approx(sum(one_d) / 2, abs=1e-12)


@pytest.mark.parametrize("d", [16, 64, 256])
def test_raster_similarity_depends_on_the_raster_distance_alone(d):
    g = 7
    table = gp.raster_1d(g, d)
    for p, q in itertools.product(range(g * g), repeat=2):
        found = gp.cosine_map(table, g, *divmod(p, g)).ravel()[q]
        closed = sum(math.cos((p - q) * 10000 ** (-2 * i / d)) for i in range(d // 2)) / (d / 2)
        assert found == pytest.approx(closed, abs=1e-12)


# --- Swin's relative position index ---------------------------------------------------


def swin_index(m: int) -> np.ndarray:
    """relative_position_index of Swin's WindowAttention, in numpy: (m², m²), query × key."""
    coords = np.stack(np.meshgrid(np.arange(m), np.arange(m), indexing="ij"))  # 2, m, m
    flat = coords.reshape(2, -1)
    relative = (flat[:, :, None] - flat[:, None, :]).transpose(1, 2, 0).copy()
    relative[:, :, 0] += m - 1
    relative[:, :, 1] += m - 1
    relative[:, :, 0] *= 2 * m - 1
    return relative.sum(-1)


@pytest.mark.parametrize("g", [7, 10, 14, 16])
def test_entries_are_swins_relative_position_index(g):
    m = gp.WINDOW
    index = swin_index(m)
    for row, col in itertools.product(range(g), repeat=2):
        entries = gp.entry_map(g, row, col)
        top, left = row - row % m, col - col % m
        query = (row - top) * m + (col - left)
        for r, c in itertools.product(range(g), repeat=2):
            if r // m == row // m and c // m == col // m:
                assert entries[r, c] == index[query, (r - top) * m + (c - left)]
            else:
                assert entries[r, c] == gp.OFF


def test_entry_table_size_centre_and_symmetry():
    m = gp.WINDOW
    assert gp.ENTRIES == (2 * m - 1) ** 2 == 169
    index = swin_index(m)
    assert set(np.unique(index)) == set(range(gp.ENTRIES))
    centre = (m - 1) * (2 * m - 1) + (m - 1)
    assert centre == 84 and (np.diag(index) == centre).all()
    # The offset −Δ uses the entry mirrored through the centre: index(Δ) + index(−Δ) = 168.
    np.testing.assert_array_equal(index + index.T, 2 * centre)
    # Within one window every key of a query uses a different entry.
    assert all(len(set(row)) == m * m for row in index)


def test_a_shift_inside_a_window_moves_the_entries_with_the_query():
    g = 14
    a, b = gp.entry_map(g, 2, 2), gp.entry_map(g, 3, 4)
    assert a[1, 1] == b[2, 3]  # the same offset (1, 1) from each query
    assert a[2, 2] == b[3, 4] == 84


# --- the grid and its patch sliders -----------------------------------------------------


def test_the_declared_patch_bounds_hold_in_every_grid_the_sliders_allow():
    side, patch = GridPositions.param.side, GridPositions.param.patch
    sides = range(side.bounds[0], side.bounds[1] + 1, side.step)
    patches = range(patch.bounds[0], patch.bounds[1] + 1, patch.step)
    grids = {gp.grid_side(s, p) for s in sides for p in patches}
    assert min(grids) == 4 and max(grids) == 16
    assert set(grids) <= set(GRIDS)
    assert GridPositions.param.row.bounds == GridPositions.param.col.bounds == (0, min(grids) - 1)


def test_the_patch_is_kept_inside_the_grid():
    figure = GridPositions(row=13, col=12)
    assert figure.param.row.bounds == (0, 13)
    figure.side = 128  # 8 × 8
    assert (figure.row, figure.col, figure.param.col.bounds) == (7, 7, (0, 7))
    with pytest.raises(ValueError, match="bounds are 0 to 7"):
        figure.row = 8
    with pytest.raises(ValueError, match="row 14 is outside a 14×14 grid; its bounds are 0 to 13"):
        GridPositions(row=14)
    assert GridPositions(side=256, patch=16, row=15).row == 15


def test_the_grid_drops_the_pixels_a_whole_patch_does_not_cover():
    figure = GridPositions(side=160, patch=24)
    assert figure.grid() == 6  # 6 × 24 = 144 of 160 pixels
    assert "→ **6 × 6** = 36 patches" in figure.readout()


def test_the_width_changes_nothing_under_the_relative_bias():
    shown = [
        (f.frame()["entries"]["data"]["image"][0].tolist(), f.readout(), f.describe(), f.table())
        for f in (GridPositions(scheme="relative", width=w) for w in gp.WIDTHS)
    ]
    assert all(s == shown[0] for s in shown)
    assert "relative" not in GridPositions.used_when["width"][1]


def test_each_scheme_draws_one_layer_and_leaves_the_other_below_its_colours():
    for scheme in gp.SCHEMES:
        frame = GridPositions(scheme=scheme).frame()
        similarity = frame["similarity"]["data"]["image"][0]
        entries = frame["entries"]["data"]["image"][0]
        if scheme == "relative":
            assert (similarity == gp.OFF).all() and (entries >= 0).sum() == 49
        else:
            assert similarity.min() == 0 and similarity.max() == 1
            assert (entries == gp.OFF).all()
