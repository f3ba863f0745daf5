"""Figure 710: the hands are sines of pos·ω, and PE(pos)·PE(pos+k) = Σ cos(kω)."""

import numpy as np

from posviz.drawing import plots
from posviz.maths import encoding
from tests.oracles import rendered_sources, spans

# The size each plot is designed at (layout test): width is a cap, height is kept.
PLOT_SIZES = [(460, 320), (420, 300)]


def drawn_and_expected(figure, values: dict):
    """The hand curves, the marks at pos, and both dot-product curves."""
    drawn, expected = {}, {}
    pos, d = values["pos"], values["d_model"]
    omegas = 10000.0 ** (-2.0 * np.arange(d // 2) / d)
    hands = encoding.hand_indices(d)
    curves = rendered_sources(plots(figure)[0])
    for n, i in enumerate(hands):
        drawn[f"hand {i}"] = curves[n]["value"]
        expected[f"hand {i}"] = np.sin(curves[n]["position"] * omegas[i])
    drawn["marks at"], expected["marks at"] = curves[-1]["position"], np.full(len(hands), pos)
    drawn["marks"] = curves[-1]["value"]
    expected["marks"] = np.sin(pos * omegas[hands])
    drawn["pos line"], expected["pos line"] = spans(plots(figure)[0]), [pos]
    rows, closed = rendered_sources(plots(figure)[1])
    ks = rows["offset k"]
    # PE(p)·PE(p+k) = Σ sin(pω)sin((p+k)ω) + cos(pω)cos((p+k)ω) = Σ cos(kω).
    by_rows = (
        np.sin(pos * omegas) * np.sin(np.outer(pos + ks, omegas))
        + np.cos(pos * omegas) * np.cos(np.outer(pos + ks, omegas))
    ).sum(axis=1)
    drawn["from rows"], expected["from rows"] = rows["PE(pos)·PE(pos+k)"], by_rows
    drawn["closed"] = closed["PE(pos)·PE(pos+k)"]
    expected["closed"] = np.cos(np.outer(ks, omegas)).sum(axis=1)
    return drawn, expected
