"""Figure 2108 — Linear biases instead of positions (ALiBi).

Press, Smith and Lewis (2022) add no position vectors. Each head h adds
−m_h·(i − j) to the score of query i for key j, keys j = 1..i (causal), so
the bias depends on the distance i − j alone and is defined at any length.

Slopes: for H heads, H a power of two, m_h = 2^(−8h/H), h = 1..H, a geometric
sequence whose first term and ratio are both 2^(−8/H). For any other H the
reference code (``get_slopes`` in ofirpress/attention_with_linear_biases,
fairseq/models/transformer.py) takes the P slopes of the closest power of two
below, P = 2^⌊log₂ H⌋, then every other slope of 2P heads (its first, third,
fifth, …: 2^(−4(2k−1)/P)) until it has H.

The weights drawn are one query's softmax of the bias alone: every key gets
the same content score, so what remains is the positional preference.
Positions count from 1 as in the paper; a model trained on sequences of
L_train tokens met distances 0 to L_train − 1.
"""

import math

import numpy as np
import param

from posviz.figures.model import INK, PALETTE, Figure, Plot, Slider

WEIGHT = "attention weight"
EXPONENT = "log₂ slope"
MARGIN = 1.1  # room above the highest weight


def slope_exponents(heads: int) -> np.ndarray:
    """log₂ m_h of each head h = 1..heads, by the reference code's rule (see the docstring)."""
    if heads < 1:
        raise ValueError(f"heads must be at least 1, not {heads}")
    power = 1 << (heads.bit_length() - 1)  # the closest power of two at or below
    first = -8.0 * np.arange(1, power + 1) / power
    extra = -4.0 * (2 * np.arange(1, heads - power + 1) - 1) / power
    return np.concatenate([first, extra])


def slopes(heads: int) -> np.ndarray:
    """The slope m_h of each head h = 1..heads."""
    return 2.0 ** slope_exponents(heads)


def weights(slope: float, query: int) -> np.ndarray:
    """Softmax over keys j = 1..query of the bias −slope·(query − j) alone."""
    scores = np.exp(-slope * (query - np.arange(1, query + 1)))
    return scores / scores.sum()


def share_beyond(slope: float, query: int, train_length: int) -> float:
    """The weight query ``query`` puts on keys at distances of train_length and more."""
    distances = query - np.arange(1, query + 1)
    return float(weights(slope, query)[distances >= train_length].sum())


def share_limit(slope: float, train_length: int) -> float:
    """What that share tends to as the query moves ever further out: e^(−slope·train_length)."""
    return math.exp(-slope * train_length)


def percent(share: float) -> str:
    """A share as a percentage with one decimal; a tiny non-zero share says so."""
    if 0 < share < 0.0005:
        return "under 0.1 %"
    return f"{100 * share:.1f} %"


def power(exponent: float) -> str:
    """2^exponent as text: 2^−4, 2^−0.5."""
    return f"2^{exponent:g}".replace("-", "−")


class LinearBiases(Figure):
    """One query's attention under ALiBi's linear biases, and the slopes of all heads."""

    figure_id = 2108
    title = "Linear biases instead of positions"
    # The first slider, H, may leave the chosen head's slope as it was (8 → 9 heads keeps
    # head 4's); the ladder of slopes always moves: what the benchmarks and engines watch.
    watched_plot = "ladder"
    caption = (
        "Drag the query position past the dashed line, the training length: the weights keep "
        "the same smooth decay, because the bias depends only on the distance from query to "
        "key, and a longer input only adds keys further back, where the weight is already "
        "small. The curve is one query's attention over its keys for the chosen head, with "
        "every key given the same content score, so it is the softmax of the bias alone. Keys "
        "left of the dotted line are farther from the query than any pair seen in training; "
        "the readout gives their share of the weight. Switch heads: steep slopes keep to the "
        "last few keys, gentle ones reach far back. On the right, every head's slope on a "
        "log scale: a power-of-two head count gives one even ladder, and any other count "
        "slots in every other slope of the next power of two."
    )

    heads = Slider(default=8, bounds=(4, 16), label="heads H", doc="Number of heads, H.")
    # Declared bounds hold at every H and every L the sliders allow (at least 4 heads, a
    # test sequence of at least 48); each figure widens them to its own H and L
    # (_keep_head_among_heads, _keep_query_in_sequence).
    head = Slider(
        default=4, bounds=(1, 4), label="head h", doc="The head shown, h (1 is the steepest)."
    )
    train_length = Slider(
        default=16,
        bounds=(4, 64),
        step=4,
        label="training length L_train",
        doc="Length of the training sequences, L_train.",
    )
    length = Slider(
        default=64,
        bounds=(48, 128),
        step=16,
        label="test length L",
        doc="Length of the test sequence, L.",
    )
    query = Slider(
        default=48, bounds=(1, 48), label="query position i", doc="Position i of the query."
    )

    def __init__(self, **params):
        # A head or query asked for outside its range is refused, not quietly moved inside it;
        # inside it, it is set once the figure has widened its bounds.
        asked = {name: params.pop(name) for name in ("head", "query") if name in params}
        for name, limit, what in (("head", "heads", "heads"), ("query", "length", "positions")):
            top = params.get(limit, self.param[limit].default)
            value = asked.get(name)
            if isinstance(top, int) and isinstance(value, int) and value > top:
                raise ValueError(
                    f"LinearBiases: {name} {value} is outside {top} {what}; "
                    f"its bounds are 1 to {top}."
                )
        super().__init__(**params)
        self.param.update(**asked)

    @param.depends("heads", watch=True, on_init=True)
    def _keep_head_among_heads(self):
        with param.parameterized.batch_call_watchers(self):
            self.param.head.bounds = (1, self.heads)
            self.param.update(head=min(self.head, self.heads))

    @param.depends("length", watch=True, on_init=True)
    def _keep_query_in_sequence(self):
        with param.parameterized.batch_call_watchers(self):
            self.param.query.bounds = (1, self.length)
            self.param.update(query=min(self.query, self.length))

    def exponent(self) -> float:
        """log₂ of the shown head's slope."""
        return float(slope_exponents(self.heads)[self.head - 1])

    def slope(self) -> float:
        """The shown head's slope m_h."""
        return float(slopes(self.heads)[self.head - 1])

    def frame(self):
        """The query's weights, the two lines, the slopes of all heads and the chosen one."""
        drawn = weights(self.slope(), self.query)
        exponents = slope_exponents(self.heads)
        return {
            "weights": {"data": {"key j": np.arange(1, self.query + 1), WEIGHT: drawn}},
            "trained": {"location": self.train_length + 0.5},
            "reach": {"location": self.query - self.train_length + 0.5},
            "attention": {
                "title.text": f"Query {self.query}, head {self.head}: m = {power(self.exponent())}",
                "x_range.start": 0.5,
                "x_range.end": self.length + 0.5,
                "y_range.start": 0.0,
                "y_range.end": float(drawn.max() * MARGIN),
            },
            "slopes": {"data": {"head": np.arange(1, self.heads + 1), EXPONENT: exponents}},
            "chosen": {"data": {"head": [self.head], EXPONENT: [self.exponent()]}},
            "ladder": {"title.text": f"Slopes of {self.heads} heads"},
        }

    def draw(self, hv, frame):
        """The weights over keys (left), every head's slope with the chosen one (right)."""
        weights_data, every, chosen = (frame[k]["data"] for k in ("weights", "slopes", "chosen"))
        return [
            Plot(
                "attention",
                {
                    "weights": hv.Curve(
                        (weights_data["key j"], weights_data[WEIGHT]), "key j", WEIGHT
                    ).opts(color=PALETTE[0], line_width=3),
                    "trained": hv.VLine(frame["trained"]["location"]).opts(
                        color=INK, line_dash="dashed"
                    ),
                    "reach": hv.VLine(frame["reach"]["location"]).opts(
                        color=PALETTE[1], line_dash="dotted", line_width=2
                    ),
                },
                width=520,
                height=320,
                show_grid=True,
            ),
            Plot(
                "ladder",
                {
                    "slopes": hv.Scatter((every["head"], every[EXPONENT]), "head", EXPONENT).opts(
                        color=PALETTE[5], size=8
                    ),
                    "chosen": hv.Scatter((chosen["head"], chosen[EXPONENT]), "head", EXPONENT).opts(
                        color=PALETTE[1], size=14
                    ),
                },
                width=300,
                height=320,
                xlim=(0.5, 16.5),
                ylim=(-8.5, 0.5),
                show_grid=True,
            ),
        ]

    def shares(self) -> tuple[float, float]:
        """The query's weight beyond trained distances, and its limit for far queries."""
        m = self.slope()
        return share_beyond(m, self.query, self.train_length), share_limit(m, self.train_length)

    def readout(self):
        """The head and its slope; the query, its share beyond trained distances and the limit."""
        share, limit = self.shares()
        where = "beyond" if self.query > self.train_length else "within"
        return (
            f"H = **{self.heads}** heads · head h = **{self.head}**: slope m = "
            f"{power(self.exponent())} = **{self.slope():.4g}**  \n"
            f"query i = **{self.query}** ({where} the training length L_train = "
            f"**{self.train_length}**, test length L = **{self.length}**): "
            f"**{percent(share)}** of its weight is on keys farther than "
            f"{self.train_length - 1} positions, a distance never met in training; "
            f"for any query, at most e^(−m·L_train) = **{percent(limit)}**"
        )

    def describe(self):
        """The curve's shape in numbers and what lies beyond trained distances."""
        share, limit = self.shares()
        drawn = weights(self.slope(), self.query)
        return (
            f"Attention weights of query {self.query} of a test sequence of {self.length} over "
            f"its keys, for head {self.head} of {self.heads} with slope {self.slope():.4g} and "
            f"equal content scores: {drawn[-1]:.3f} on the query itself falling to "
            f"{drawn[0]:.3g} on the first key; {percent(share)} lies on keys farther than "
            f"{self.train_length - 1} positions, the farthest distance met in training "
            f"(the most any query can put there: {percent(limit)})."
        )

    def table(self):
        """Per head: its slope, and the query's weight beyond trained distances under it."""
        rows = [
            (
                h,
                power(e),
                f"{2.0**e:.4g}",
                percent(share_beyond(2.0**e, self.query, self.train_length)),
                percent(share_limit(2.0**e, self.train_length)),
            )
            for h, e in enumerate(slope_exponents(self.heads), start=1)
        ]
        return (
            f"Slopes of {self.heads} heads; weight of query {self.query} beyond distance "
            f"{self.train_length - 1}",
            ["head h", "slope m", "m", "weight beyond", "at most"],
            rows,
        )
