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


LABELS = {"global": "global  S⁴", "window": "k×k window  S²·k²", "axial": "axial  2·S²·m"}


def readout(values: Values) -> str:
    """k, m, the window/axial ratio, where the curves cross, and what is clipped where."""
    k, m = int(values["k"]), int(values["m"])
    ratio = cost.window_to_axial(k, m)
    verdict = (
        "they tie" if ratio == 1 else "the window is cheaper" if ratio < 1 else "axial is cheaper"
    )
    cross = cost.crossing(k, m)
    where = (
        f"the curves cross at S = k²/2 = **{cross:g}**, axial cheaper below it"
        if cross is not None
        else "the curves do not cross above S = 2"
    )
    clipped = []
    if k > 1:
        clipped.append(f"the window is clipped to S for S < {k}")
    if m > 1:
        clipped.append(f"the span is clipped to S for S < {m}")
    return (
        f"k = **{k}**, m = **{m}** · window / axial = k²/(2m) = "
        f"{k**2}/{2 * m} = **{ratio:.2f}**: {verdict} "
        f"(on images large enough for neither to be clipped) · {where}.  \n"
        f"The dotted line marks S = k and the dashed line S = m; "
        f"{'; '.join(clipped) or 'nothing is clipped'}."
    )


def describe(values: Values) -> str:
    """A short sentence saying what the plots show at the current values."""
    at = cost.entries(np.array([64]), int(values["k"]), int(values["m"]))
    return (
        "Log-scale curves of attention entries per layer against image side; at S = 64 "
        + ", ".join(f"{LABELS[s]} {float(v[0]):.3g}" for s, v in at.items())
        + "."
    )


def table(values: Values) -> tuple[str, list[str], list[tuple]]:
    """Entries per layer at a few image sides."""
    k, m = int(values["k"]), int(values["m"])
    sides = np.array([8, 16, 32, 64, 128, 256])
    entries = cost.entries(sides, k, m)
    return (
        f"Attention entries per layer, k = {k}, m = {m}",
        ["image side S", *[LABELS[s] for s in entries]],
        [
            (int(side), *[f"{float(v[n]):.4g}" for v in entries.values()])
            for n, side in enumerate(sides)
        ],
    )
