"""Figure 96's frame: the bar lengths, their labels, the title and the value range."""

import numpy as np

from posviz.frames import Frame, Values, pprint
from posviz.maths import budget

SIZES = ("d_model", "d_ff", "n_layers", "vocab_size")
# Room past the longest bar for its label, as a share of the bars' span.
PAD = 0.22


def counts(values: Values) -> dict[str, int]:
    """Parameters of each role at the sizes in ``values``."""
    return budget.parameter_counts(*(int(values[name]) for name in SIZES))


def millions(values: Values) -> np.ndarray:
    """Each role's millions in drawing order (reversed: Bokeh draws the first at the bottom)."""
    return np.array([count / 1e6 for count in reversed(counts(values).values())])


def plot_title(values: Values) -> str:
    """The plot's title at the sizes in ``values``."""
    return f"Total {sum(counts(values).values()) / 1e6:.1f} M parameters"


def label(value: float) -> str:
    """A bar's label: its millions."""
    return f" {value:.2f} M" if value < 1 else f" {value:.1f} M"


def frame(values: Values) -> Frame:
    """Everything a size step changes on screen."""
    lengths = millions(values)
    low = lengths.min()
    return {
        "lengths": {"data": {"millions": lengths}},
        # HoloViews hands Bokeh the label coordinates as text on a categorical plot.
        "labels": {
            "data": {
                "millions": [pprint(v) for v in lengths],
                "text": [label(v) for v in lengths],
            }
        },
        "bars": {
            "title.text": plot_title(values),
            # As HoloViews pads it: from 0 (the bars' base) to PAD of the span past the longest.
            "x_range.start": 0,
            "x_range.end": float(low + (lengths.max() - low) * (1 + PAD)),
        },
    }


def readout(values: Values) -> str:
    """The sizes, the total and two shares worth noticing."""
    found = counts(values)
    total = sum(found.values())
    d_model, d_ff = int(values["d_model"]), int(values["d_ff"])
    share = budget.encoder_layer_share(d_model, d_ff)
    return (
        f"**{values['preset']}** · d_model = {d_model}, d_ff = {d_ff}, "
        f"N = {int(values['n_layers'])}, vocab = {int(values['vocab_size']):,} · "
        f"total **{total / 1e6:.1f} M**  \n"
        f"feed-forward share of an encoder layer: **{share['feed-forward']:.1%}** · "
        f"embedding share of the model: **{found['embedding'] / total:.1%}**"
    )


def describe(values: Values) -> str:
    """A short sentence saying what the plots show at the current values."""
    found = counts(values)
    largest = max(found, key=found.get)
    return (
        f"Horizontal bars of parameters by role, {sum(found.values()) / 1e6:.1f} million in all; "
        f"the largest is {largest} with {found[largest] / 1e6:.1f} million."
    )


def table(values: Values) -> tuple[str, list[str], list[tuple]]:
    """Parameters per role, in millions."""
    return (
        f"Parameters by role ({values['preset']}), in millions",
        ["role", "millions"],
        [(role, f"{count / 1e6:.2f}") for role, count in counts(values).items()],
    )
