"""Figure 2104 — Rotary scores depend on the offset only.

Rotary position embedding (RoPE; Su et al., 2021, RoFormer, §3.2.2, Eq. 14–16)
rotates each pair of dimensions (2i, 2i+1) of a query or key at position p by
the angle p·θ_i, θ_i = base^(−2i/d), i = 0 … d/2 − 1 (the paper counts i from
1 and writes the exponent −2(i−1)/d; its base is 10000). The score of a query
at m and a key at n is then

    ⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k = Σ_i a_i·cos((n−m)·θ_i) + b_i·sin((n−m)·θ_i),
    a_i = q_2i·k_2i + q_2i+1·k_2i+1,   b_i = q_2i+1·k_2i − q_2i·k_2i+1,

a function of n − m alone. The sine terms make it uneven in n − m, unlike the
sum of cosines that the bare sinusoidal dot product gives (figure 710).

q and k are fixed unit vectors, q ∝ (cos j)_j and k ∝ (sin(j+1))_j for
j = 0 … d − 1: a formula, so every tier computes the same vectors.
"""

from functools import lru_cache

import numpy as np
import param

from posviz.figures.model import INK, PALETTE, EvenSlider, Figure, Plot, Slider

SIDE = 24  # the map holds positions 0 … SIDE − 1 for the query and for the key
POSITIONS = np.arange(SIDE)
OFFSETS = np.arange(-40, 41)
BASES = {"100": 100, "1,000": 1000, "10,000": 10000, "500,000": 500000}
HALF = SIDE - 0.5
# Each plot's size: the layout draws it scaled to its card, keeping this shape (the
# frame options become the canvas there). The map's axes and colour bar take about
# 150 px across and 130 px down, which leaves its cells square at this size.
MAP_SIZE, CURVE_SIZE = (400, 289), (440, 289)
# Markers: the pair (m, n), the same pair shifted by s, and the pair swapped.
MARKS = {
    "pair": {"marker": "circle", "size": 9, "color": INK},
    "shifted": {"marker": "square", "size": 17, "fill_alpha": 0, "line_width": 2.5},
    "swapped": {"marker": "triangle", "size": 12, "color": PALETTE[2]},
}


def speeds(d: int, base: int) -> np.ndarray:
    """θ_i = base^(−2i/d) for the d/2 pairs, fastest (θ_0 = 1) first."""
    return float(base) ** (-2.0 * np.arange(d // 2) / d)


@lru_cache(maxsize=32)
def vectors(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed query and key: unit vectors along (cos j) and (sin(j + 1)), j < d."""
    j = np.arange(d, dtype=float)
    q, k = np.cos(j), np.sin(j + 1)
    return q / np.sqrt(q @ q), k / np.sqrt(k @ k)


def rotated(x: np.ndarray, positions, base: int) -> np.ndarray:
    """The vector x rotated for each position: pair i turned by position·θ_i, one row each."""
    angles = np.outer(np.asarray(positions, dtype=float), speeds(len(x), base))
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[0::2], x[1::2]
    out = np.empty((angles.shape[0], len(x)))
    out[:, 0::2] = cos * even - sin * odd
    out[:, 1::2] = sin * even + cos * odd
    return out


def scores(m_positions, n_positions, d: int, base: int) -> np.ndarray:
    """(R_m q)·(R_n k) for every m (rows) and n (columns): the rotated vectors' products."""
    q, k = vectors(d)
    return rotated(q, m_positions, base) @ rotated(k, n_positions, base).T


def score(m: int, n: int, d: int, base: int) -> float:
    """The score of the query at m and the key at n."""
    return float(scores([m], [n], d, base)[0, 0])


def by_offset(offsets, d: int, base: int) -> np.ndarray:
    """Σ a_i·cos(Δθ_i) + b_i·sin(Δθ_i) for each offset Δ = n − m: the closed form."""
    q, k = vectors(d)
    a = q[0::2] * k[0::2] + q[1::2] * k[1::2]
    b = q[1::2] * k[0::2] - q[0::2] * k[1::2]
    angles = np.outer(np.asarray(offsets, dtype=float), speeds(d, base))
    return np.cos(angles) @ a + np.sin(angles) @ b


@lru_cache(maxsize=64)
def grid(d: int, base: int) -> np.ndarray:
    """The map: the score for query positions m (rows) and key positions n (columns)."""
    return scores(POSITIONS, POSITIONS, d, base)


@lru_cache(maxsize=64)
def curve(d: int, base: int) -> np.ndarray:
    """The closed form over OFFSETS."""
    return by_offset(OFFSETS, d, base)


def diagonal(m: int, n: int) -> dict:
    """The ends, on the map's edges, of the diagonal through (m, n): n − m is constant on it."""
    low, high = -min(m, n), SIDE - 1 - max(m, n)
    return {"n": [n + low, n + high], "m": [m + low, m + high]}


def signed(value: float, digits: int = 3) -> str:
    """A number with a true minus sign: −0.125."""
    return f"{value:.{digits}f}".replace("-", "−")


def base_text(base: int) -> str:
    """The base as the buttons write it: 10,000."""
    return f"{base:,}"


class RotaryScores(Figure):
    """The RoPE score of a fixed query and key over positions, and against the offset."""

    figure_id = 2104
    title = "Rotary scores depend on the offset only"
    caption = (
        "Drag the shift s and watch the square marker slide along its diagonal on the map "
        "while the score in the readout stays exactly the same: rotating both the query and "
        "the key by the same extra angle leaves their dot product alone. That is why every "
        "diagonal of the map has one colour, and why the right-hand curve, the score "
        "against the offset n − m, needs no m or n of its own. Now compare the dot (the "
        "pair m, n) with the triangle (the pair swapped): the curve is not symmetric, so "
        "a key ahead of the query scores differently from one the same distance behind, "
        "which the bare sinusoidal dot product of the clock-hands figure cannot tell apart. "
        "Raise d to add slower pairs; raise the base to slow them all down."
    )
    widgets = {"base": "buttons"}
    # The common shift s is there to change no score: the map, the curve and the pair's
    # own marks stay; only the shifted pair's square moves along its diagonal.
    invariant = {"s": ("cells", "map", "curve", "pair", "swapped")}

    m = Slider(default=3, bounds=(0, 15), label="query position m", doc="Position of the query.")
    n = Slider(default=8, bounds=(0, 15), label="key position n", doc="Position of the key.")
    s = Slider(
        default=4,
        bounds=(0, 8),
        label="common shift s",
        doc="Added to both positions: the pair moves to (m + s, n + s).",
    )
    d = EvenSlider(
        default=16,
        bounds=(4, 64),
        step=4,
        label="dimension d",
        doc="Width of the query and key (even): d/2 rotating pairs.",
    )
    base = param.Selector(
        default=10000,
        objects=BASES,
        label="base",
        doc="θ_i = base^(−2i/d): a larger base turns every pair but the first more slowly.",
    )

    def pair_scores(self) -> tuple[float, float, float]:
        """The scores of (m, n), of (m + s, n + s) and of the pair swapped, (n, m)."""
        m, n, s, d, base = self.m, self.n, self.s, self.d, self.base
        return score(m, n, d, base), score(m + s, n + s, d, base), score(n, m, d, base)

    def frame(self):
        """The map and its marks, the curve and its marks with their legend, the title."""
        m, n, s, offset = self.m, self.n, self.s, self.n - self.m
        here, shifted, swapped = self.pair_scores()
        return {
            "cells": {"data": {"image": [grid(self.d, self.base)]}},
            "diagonal": {"data": diagonal(m, n)},
            "at_pair": {"data": {"n": [n], "m": [m]}},
            "at_shifted": {"data": {"n": [n + s], "m": [m + s]}},
            "at_swapped": {"data": {"n": [m], "m": [n]}},
            "map": {"title.text": f"Score at (m, n): d = {self.d}, base {base_text(self.base)}"},
            "curve": {"data": {"score": curve(self.d, self.base)}},
            "pair": {"data": {"offset": [offset], "score": [here]}},
            "shifted": {"data": {"offset": [offset], "score": [shifted]}},
            "swapped": {"data": {"offset": [-offset], "score": [swapped]}},
            "pair:label": {"label": f"pair ({m}, {n})"},
            "shifted:label": {"label": f"shifted ({m + s}, {n + s})"},
            "swapped:label": {"label": f"swapped ({n}, {m})"},
        }

    def draw(self, hv, frame):
        """The map over (n, m) with three marks (left), the score against n − m (right)."""
        axes = [
            hv.Dimension("n", label="key position n"),
            hv.Dimension("m", label="query position m"),
        ]
        image = frame["cells"]["data"]["image"][0]
        spots = {
            f"at_{key}": hv.Points(
                (frame[f"at_{key}"]["data"]["n"], frame[f"at_{key}"]["data"]["m"]), axes
            ).opts(line_color=INK, **{"color": "white", **MARKS[key]})
            for key in MARKS
        }
        marks = {
            key: hv.Scatter(
                (frame[key]["data"]["offset"], frame[key]["data"]["score"]),
                "offset",
                "score",
                label=frame[f"{key}:label"]["label"],
            ).opts(line_color=INK, **{"color": "white", **MARKS[key]})
            for key in MARKS
        }
        offset = hv.Dimension("offset", label="offset n − m")
        return [
            Plot(
                "map",
                {
                    # HoloViews puts an array's first row on top; the frame's row m sits at y = m.
                    "cells": hv.Image(
                        image[::-1], bounds=(-0.5, -0.5, HALF, HALF), kdims=axes, vdims="score"
                    ).opts(cmap="RdBu_r", clim=(-1, 1), colorbar=True),
                    "diagonal": hv.Curve(
                        (frame["diagonal"]["data"]["n"], frame["diagonal"]["data"]["m"]), *axes
                    ).opts(color=PALETTE[5], line_dash="dashed", line_width=2),
                    **spots,
                },
                frame_width=MAP_SIZE[0],
                frame_height=MAP_SIZE[1],
                xlim=(-0.5, HALF),
                ylim=(-0.5, HALF),
            ),
            Plot(
                "against",
                {
                    "curve": hv.Curve(
                        (OFFSETS, frame["curve"]["data"]["score"]), offset, "score"
                    ).opts(color=PALETTE[0], line_width=2),
                    **marks,
                },
                frame_width=CURVE_SIZE[0],
                frame_height=CURVE_SIZE[1],
                xlim=(-41, 41),
                ylim=(-1.05, 1.5),
                title="Score against the offset n − m",
                legend_position="top_left",
                legend_cols=3,
                legend_opts={"background_fill_alpha": 0.85, "label_text_font_size": "8.5pt"},
                show_grid=True,
            ),
        ]

    def readout(self):
        """The pair, its score, the shifted pair's and the swapped pair's."""
        here, shifted, swapped = self.pair_scores()
        m, n, s = self.m, self.n, self.s
        ahead, behind = signed(n - m, 0), signed(m - n, 0)
        return (
            f"(m, n) = ({m}, {n}): score **{signed(here)}** · shifted by {s} to "
            f"({m + s}, {n + s}): score **{signed(shifted)}**  \n"
            f"offset n − m = **{ahead}** · swapped to ({n}, {m}), offset {behind}: "
            f"score **{signed(swapped)}** · d = {self.d}, base {base_text(self.base)}"
        )

    def describe(self):
        """The map and the curve, with the three scores."""
        here, shifted, swapped = self.pair_scores()
        m, n, s = self.m, self.n, self.s
        return (
            f"A map of the rotary score for query and key positions 0 to {SIDE - 1} "
            f"(d = {self.d}, base {base_text(self.base)}), constant along each diagonal, and "
            f"the score against the offset n − m from {signed(OFFSETS[0], 0)} to "
            f"{OFFSETS[-1]}: the query at {m} and the key at {n} score {signed(here)}, the "
            f"pair shifted by {s} to ({m + s}, {n + s}) scores {signed(shifted)}, and the "
            f"pair swapped, at offset {signed(m - n, 0)}, scores {signed(swapped)}."
        )

    def table(self):
        """The score at +Δ and at −Δ, every five offsets."""
        values = curve(self.d, self.base)
        at = {int(k): v for k, v in zip(OFFSETS, values, strict=True)}
        return (
            f"Rotary score against the offset n − m, d = {self.d}, base {base_text(self.base)}",
            ["offset Δ", "score at +Δ", "score at −Δ"],
            [(k, signed(at[k]), signed(at[-k])) for k in range(0, OFFSETS[-1] + 1, 5)],
        )
