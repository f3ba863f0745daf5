"""Figure 2306: per pair, plain RoPE reaches s times its trained angle, PI exactly it, and the
NTK-aware base s^(1 − 2i/(d−2)) times it; the neighbour steps are those divided by s."""

import math

import holoviews as hv
from bokeh.models import Span

from posviz.drawing import plots
from tests.oracles import rendered_sources

# The size each plot is designed at (layout test): width is a cap, height is kept.
PLOT_SIZES = [(520, 320), (380, 320)]


def drawn_and_expected(figure, values: dict):
    """Both panels' three curves with their pair indices, and the full-turn line on each."""
    drawn, expected = {}, {}
    d, base = values["d"], values["base"]
    s = values["length"] / values["train_length"]
    pairs = list(range(d // 2))
    # Closed forms: θ'_i / θ_i = (s^(d/(d−2)))^(−2i/d) = s^(−2i/(d−2)) for NTK, 1/s for PI.
    ntk = [s ** (-2 * i / (d - 2)) for i in pairs]
    expected_step = {"plain": [1.0] * len(pairs), "pi": [1 / s] * len(pairs), "ntk": ntk}
    for key, column in (("reach", "largest angle ÷ trained"), ("step", "neighbour step ÷ trained")):
        plot = next(p for p, k in zip(plots(figure), ("reach", "step"), strict=True) if k == key)
        curves = rendered_sources(plot)
        for method, curve in zip(("plain", "pi", "ntk"), curves, strict=True):
            drawn[f"{key} {method} pairs"], expected[f"{key} {method} pairs"] = (
                curve["pair i"],
                pairs,
            )
            drawn[f"{key} {method}"] = curve[column]
            # The largest angle is L times the step, against L_train times the trained step.
            factor = s if key == "reach" else 1.0
            expected[f"{key} {method}"] = [factor * r for r in expected_step[method]]
        lines = hv.render(plot).select(Span)
        # The trained range (or step) at 1, across the plot.
        drawn[f"{key} at one"] = [x.location for x in lines if x.dimension == "width"]
        expected[f"{key} at one"] = [1.0]
        # Where L_train·base^(−2i/d) = 2π: i = (d/2)·log_base(L_train / 2π).
        drawn[f"{key} full turn"] = [x.location for x in lines if x.dimension == "height"]
        expected[f"{key} full turn"] = [
            d / 2 * math.log(values["train_length"] / (2 * math.pi), base)
        ]
    return drawn, expected
