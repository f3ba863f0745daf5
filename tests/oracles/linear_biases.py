"""Figure 2108: softmax of −m·(i − j) over keys j = 1..i, and ALiBi's slope rule, by hand."""

import math

import holoviews as hv

from posviz.drawing import plots
from tests.oracles import rendered_sources, spans

# The size each plot is designed at (layout test): width is a cap, height is kept.
PLOT_SIZES = [(520, 320), (300, 320)]


def exponents_by_rule(heads: int) -> list[float]:
    """log₂ of each head's slope, as the reference code's get_slopes builds them, written out.

    H a power of two: 2^(−8/H), then times 2^(−8/H) again for each next head. Otherwise
    the slopes of the largest power of two P below H, then the 1st, 3rd, 5th, … slopes of
    2P heads, until there are H.
    """
    if heads & (heads - 1) == 0:
        return [-8 * h / heads for h in range(1, heads + 1)]
    below = 2 ** math.floor(math.log2(heads))
    doubled = exponents_by_rule(2 * below)
    return exponents_by_rule(below) + doubled[0::2][: heads - below]


def softmax_of_bias(slope: float, query: int) -> list[float]:
    """exp(−m·(i − j)) / Σ over keys j = 1..i, in a loop."""
    scores = [math.exp(-slope * (query - j)) for j in range(1, query + 1)]
    total = sum(scores)
    return [s / total for s in scores]


def drawn_and_expected(figure, values: dict):
    """The weights curve with its keys, the two lines, every head's slope and the chosen one."""
    drawn, expected = {}, {}
    heads, head, query = values["heads"], values["head"], values["query"]
    exponents = exponents_by_rule(heads)
    slope = 2.0 ** exponents[head - 1]
    attention, ladder = plots(figure)
    [curve] = rendered_sources(attention)
    drawn["keys"], expected["keys"] = curve["key j"], list(range(1, query + 1))
    drawn["weights"], expected["weights"] = curve["attention weight"], softmax_of_bias(slope, query)
    # Dashed: the end of the training length; dotted: keys left of it lie farther than
    # any distance met in training (i − j ≥ L_train).
    trained = values["train_length"]
    drawn["lines"] = sorted(spans(attention))
    expected["lines"] = sorted([trained + 0.5, query - trained + 0.5])
    # The keys axis spans the test sequence, positions 1 to L.
    axis = hv.render(attention).x_range
    drawn["x range"], expected["x range"] = [axis.start, axis.end], [0.5, values["length"] + 0.5]
    every, chosen = rendered_sources(ladder)
    drawn["heads"], expected["heads"] = every["head"], list(range(1, heads + 1))
    drawn["slopes"], expected["slopes"] = every["log₂ slope"], exponents
    drawn["chosen"], expected["chosen"] = (
        [chosen["head"][0], chosen["log₂ slope"][0]],
        [head, exponents[head - 1]],
    )
    return drawn, expected
