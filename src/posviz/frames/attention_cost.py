"""Figure 7256's frame: the three cost curves, the lines at S = k and S = m, the title."""

import numpy as np

from posviz.frames import Frame, Values
from posviz.maths import cost

SIDES = np.unique(np.round(np.geomspace(1, 256, 200)))
Y = "log10 entries per layer"


def plot_title(k: int, m: int) -> str:
    """The plot's title at k and m."""
    return f"k = {k}, m = {m}"


def frame(values: Values) -> Frame:
    """Everything a k or m step changes on screen."""
    k, m = int(values["k"]), int(values["m"])
    result: Frame = {
        scheme: {"data": {Y: np.log10(entries)}}
        for scheme, entries in cost.entries(SIDES, k, m).items()
    }
    result["tie"] = {"location": k}
    result["span"] = {"location": m}
    result["cost"] = {"title.text": plot_title(k, m)}
    return result
