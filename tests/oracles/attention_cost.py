"""Figure 7256: entries per layer are the closed forms S⁴, S²·k² and 2·S²·m."""

import numpy as np

from posviz.drawing import plots
from posviz.figures import attention_cost as cost
from tests.oracles import rendered_sources, spans

# The size each plot is designed at (layout test): width is a cap, height is kept.
PLOT_SIZES = [(620, 320)]


def drawn_and_expected(figure, values: dict):
    """The three cost curves (log10), the lines at S = k and S = m, and the readout's ratio."""
    drawn, expected = {}, {}
    k, m = values["k"], values["m"]
    for source, scheme in zip(rendered_sources(plots(figure)[0]), cost.SCHEMES, strict=True):
        sides = np.asarray(source["image side S (pixels)"])
        drawn[scheme] = source["log10 entries per layer"]
        expected[scheme] = np.log10(
            {
                "global": sides**4,
                "window": sides**2 * np.minimum(k, sides) ** 2,
                "axial": 2 * sides**2 * np.minimum(m, sides),
            }[scheme]
        )
    # The dotted line at S = k, the dashed one at S = m (where window and span stop clipping).
    drawn["lines"], expected["lines"] = sorted(spans(plots(figure)[0])), sorted([k, m])
    assert f"= **{k * k / (2 * m):.2f}**" in figure.readout()
    return drawn, expected
