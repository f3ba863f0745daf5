"""Figure 2010: the map is the cosine similarity of sinusoidal position embeddings, summed
cosine by cosine here, stretched to [0, 1]; or Swin's table entry, counted out cell by cell."""

import math

import numpy as np

from posviz.drawing import plots
from tests.oracles import rendered_sources

# The size each plot is designed at (layout test); its cells are square, so its shape is kept.
PLOT_SIZES = [(300, 330)]
SQUARE_CELLS = True

M = 7  # Swin's window side (Liu et al., 2021, §3.3)


def cosine(offset_sums, d: int) -> float:
    """A sum of cos(ω·Δ) over the d/2 (sin, cos) pairs, over its value at Δ = 0 (d/2)."""
    return offset_sums / (d / 2)


def raster(g: int, row: int, col: int, d: int) -> np.ndarray:
    """PE(p)·PE(q) = Σ_i cos(ω_i·(p − q)), ω_i = 10000^(−2i/d), over |PE|² = d/2."""
    anchor = row * g + col
    found = np.empty((g, g))
    for r in range(g):
        for c in range(g):
            gap = r * g + c - anchor
            total = sum(math.cos(gap * 10000 ** (-2 * i / d)) for i in range(d // 2))
            found[r, c] = cosine(total, d)
    return found


def two_d(g: int, row: int, col: int, d: int) -> np.ndarray:
    """Each axis has d/4 pairs at ω_i = 10000^(−2i/(d/2)): Σ cos(ω_i·Δrow) + Σ cos(ω_i·Δcol)."""
    found = np.empty((g, g))
    for r in range(g):
        for c in range(g):
            total = sum(
                math.cos((r - row) * 10000 ** (-4 * i / d))
                + math.cos((c - col) * 10000 ** (-4 * i / d))
                for i in range(d // 4)
            )
            found[r, c] = cosine(total, d)
    return found


def swin_entries(g: int, row: int, col: int) -> np.ndarray:
    """The entry each key in the query's window uses, −1 elsewhere (the windows tile from 0)."""
    found = np.full((g, g), -1.0)
    for r in range(g):
        for c in range(g):
            if r // M == row // M and c // M == col // M:
                found[r, c] = (row - r + M - 1) * (2 * M - 1) + (col - c + M - 1)
    return found


def drawn_and_expected(figure, values: dict):
    """Both layers as drawn, and the mark; the layer a scheme does not use is all −1."""
    g = values["side"] // values["patch"]
    where, d = (values["row"], values["col"]), values["width"]
    off = np.full((g, g), -1.0)
    if values["scheme"] == "relative":
        shaded, entries = off, swin_entries(g, *where)
    else:
        sims = (raster if values["scheme"] == "raster" else two_d)(g, *where, d)
        shaded = (sims - sims.min()) / (sims.max() - sims.min())
        entries = off
    similarity, entry, mark = rendered_sources(plots(figure)[0])
    drawn = {
        "similarity": similarity["image"][0],
        "entries": entry["image"][0],
        "mark": [mark["column"][0], mark["row"][0]],
    }
    expected = {"similarity": shaded, "entries": entries, "mark": [values["col"], values["row"]]}
    return drawn, expected
