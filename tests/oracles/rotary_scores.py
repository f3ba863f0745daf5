"""Figure 2104: rotary scores, computed here as the paper's complex form (RoFormer, Eq. 12).

Pair i of a vector is read as the complex number x_2i + i·x_2i+1; rotating it by the
angle p·θ_i is multiplying by e^(i·p·θ_i), and the real dot product of two vectors is
Re Σ_i a_i·conj(b_i). So the score of the query at m and the key at n is
Re Σ_i q_i·conj(k_i)·e^(i(m−n)θ_i), written out here without the figure's functions.
"""

import numpy as np

from posviz.drawing import plots
from tests.oracles import rendered_sources

# The size each plot is designed at (layout test): both scale with the card, keeping
# their shape, so the map's cells stay square.
PLOT_SIZES = [(400, 319), (440, 319)]
SQUARE_CELLS = True


def pairs(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed query and key as d/2 complex numbers each, unit vectors overall."""
    q = np.array([np.cos(j) for j in range(d)])
    k = np.array([np.sin(j + 1) for j in range(d)])
    q, k = q / np.linalg.norm(q), k / np.linalg.norm(k)
    return q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]


def rope_score(m: int, n: int, d: int, base: int) -> float:
    """Re Σ (q_i·e^(i·m·θ_i))·conj(k_i·e^(i·n·θ_i)), θ_i = base^(−2i/d)."""
    q, k = pairs(d)
    theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
    return float(np.real(np.sum(q * np.exp(1j * m * theta) * np.conj(k * np.exp(1j * n * theta)))))


def drawn_and_expected(figure, values: dict):
    """The map, the diagonal and the three marks on it; the curve and its three marks."""
    m, n, s, d, base = (values[name] for name in ("m", "n", "s", "d", "base"))
    drawn, expected = {}, {}
    cells, diagonal, at_pair, at_shifted, at_swapped = rendered_sources(plots(figure)[0])
    drawn["map"] = cells["image"][0]
    expected["map"] = [[rope_score(row, col, d, base) for col in range(24)] for row in range(24)]
    # The dashed diagonal runs through (m, n) from edge to edge of the map.
    drawn["diagonal"] = np.array([diagonal["n"], diagonal["m"]])
    start, end = min(m, n), 23 - max(m, n)
    expected["diagonal"] = np.array([[n - start, n + end], [m - start, m + end]])
    for name, source, (row, col) in (
        ("pair", at_pair, (m, n)),
        ("shifted", at_shifted, (m + s, n + s)),
        ("swapped", at_swapped, (n, m)),
    ):
        drawn[f"map {name}"] = [source["m"][0], source["n"][0]]
        expected[f"map {name}"] = [row, col]
    line, pair, shifted, swapped = rendered_sources(plots(figure)[1])
    offsets = np.arange(-40, 41)
    drawn["offsets"], expected["offsets"] = line["offset"], offsets
    drawn["curve"] = line["score"]
    expected["curve"] = [rope_score(0, int(offset), d, base) for offset in offsets]
    for name, source, (row, col) in (
        ("pair", pair, (m, n)),
        ("shifted", shifted, (m + s, n + s)),
        ("swapped", swapped, (n, m)),
    ):
        drawn[name] = [source["offset"][0], source["score"][0]]
        expected[name] = [col - row, rope_score(row, col, d, base)]
    return drawn, expected
