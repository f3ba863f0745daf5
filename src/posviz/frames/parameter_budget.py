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
