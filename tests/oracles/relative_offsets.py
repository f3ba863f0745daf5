"""Figure 1803: Shaw's clipped offsets and T5's buckets, from the published rules written here.

``mesh_bucket`` is Mesh TensorFlow's ``_relative_position_bucket`` (the reference
code T5 was trained with), one offset at a time, its logarithms taken in 40-digit
decimal arithmetic: where the exact value is a whole number (log 2 / log 32 · 5 = 1)
it gives that number, which plain float64 can miss by a hair. Nothing here calls
the figure's own functions.
"""

from decimal import Decimal, localcontext
from functools import cache

from posviz.drawing import plots
from tests.oracles import rendered_sources

# The size each plot is designed at (layout test): the two maps keep square cells;
# the index plot, a line plot, stretches to the width and keeps its height.
PLOT_SIZES = [(260, 290), (260, 290), (460, 320)]
SQUARE_CELLS = [True, True, False]


def clip(offset: int, k: int) -> int:
    """Shaw et al. (2018), §3.2: clip(x, k) = max(−k, min(k, x))."""
    return max(-k, min(k, offset))


def mesh_bucket(relative: int, bidirectional: bool, buckets: int, max_distance: int) -> int:
    """The bucket of one relative position (memory − query), as Mesh TensorFlow computes it."""
    ret = 0
    n = -relative
    if bidirectional:
        buckets //= 2
        if n < 0:
            ret += buckets
        n = abs(n)
    else:
        n = max(n, 0)
    max_exact = buckets // 2
    if n < max_exact:
        return ret + n
    return ret + min(max_exact + log_steps(n, max_exact, max_distance, buckets), buckets - 1)


def log_steps(n: int, max_exact: int, max_distance: int, buckets: int) -> int:
    """⌊log(n / max_exact) / log(max_distance / max_exact) · (buckets − max_exact)⌋, in
    40-digit arithmetic, so that a whole number stays whole."""
    with localcontext() as context:
        context.prec = 40
        ratio = log(n, max_exact) / log(max_distance, max_exact)
        return int(ratio * (buckets - max_exact) + Decimal("1e-30"))


@cache
def log(numerator: int, denominator: int) -> Decimal:
    """log(numerator / denominator) to 40 digits."""
    with localcontext() as context:
        context.prec = 40
        return (Decimal(numerator) / denominator).ln()


def shade(bucket: int, buckets: int, bidirectional: bool) -> float:
    """The colour value the T5 map gives a bucket: its place along its side, minus before."""
    if not bidirectional:
        return -bucket / (buckets - 1)
    half = buckets // 2
    return (bucket - half) / (half - 1) if bucket >= half else -bucket / (half - 1)


def drawn_and_expected(figure, values: dict):
    """Both maps cell by cell, and both staircases and dots over every signed offset."""
    n, k, buckets, far = values["n"], values["k"], values["buckets"], values["max_distance"]
    both = values["direction"] == "bidirectional"
    shaw_map, t5_map, index = plots(figure)
    drawn, expected = {}, {}
    drawn["shaw map"] = rendered_sources(shaw_map)[0]["image"][0]
    expected["shaw map"] = [[clip(j - i, k) / k for j in range(n)] for i in range(n)]
    drawn["t5 map"] = rendered_sources(t5_map)[0]["image"][0]
    expected["t5 map"] = [
        [shade(mesh_bucket(j - i, both, buckets, far), buckets, both) for j in range(n)]
        for i in range(n)
    ]
    offsets = list(range(1 - n, n))
    columns = {
        "shaw": [clip(d, k) + k for d in offsets],
        "t5": [mesh_bucket(d, both, buckets, far) for d in offsets],
    }
    keys = ("shawcurve", "shawdots", "t5curve", "t5dots")
    sources = dict(zip(keys, rendered_sources(index), strict=True))
    for key, column in columns.items():
        dots, curve = sources[f"{key}dots"], sources[f"{key}curve"]
        drawn[f"{key} dots at"], expected[f"{key} dots at"] = dots["offset j − i"], offsets
        drawn[f"{key} dots"], expected[f"{key} dots"] = dots["parameter index"], column
        # A staircase: a flat step from d − ½ to d + ½ at each offset.
        drawn[f"{key} steps at"] = curve["offset j − i"]
        expected[f"{key} steps at"] = [d + half for d in offsets for half in (-0.5, 0.5)]
        drawn[f"{key} steps"] = curve["parameter index"]
        expected[f"{key} steps"] = [value for value in column for _ in (0, 1)]
    return drawn, expected
