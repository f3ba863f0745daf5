"""Figure 710's frame: the hands, the pos marks and both dot-product curves."""

import math
from functools import lru_cache

import numpy as np

from posviz.frames import Frame, Values
from posviz.maths import encoding

POSITIONS = np.linspace(0, 100, 801)
OFFSETS = np.arange(0, 101)
DOT = "PE(pos)·PE(pos+k)"
# HoloViews' default y padding of a curve, as a share of its span: the dot plot's range.
DOT_PADDING = 0.1
HANDS = 4


@lru_cache(maxsize=16)
def hand_table(d_model: int) -> np.ndarray:
    """sin(p·ω_i) over POSITIONS for the drawn hands: one column per hand."""
    omegas = encoding.frequencies(d_model)[encoding.hand_indices(d_model)]
    return np.sin(np.outer(POSITIONS, omegas))


@lru_cache(maxsize=64)
def offset_curves(pos: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """Both dot-product curves over OFFSETS: from the encoding rows, and Σ cos(ωᵢk)."""
    return (
        encoding.dot_from_rows(pos, OFFSETS, d_model),
        encoding.dot_closed_form(OFFSETS, d_model),
    )


def hands(d_model: int) -> list[tuple[int, float]]:
    """(i, ω_i) of the hands drawn on the left."""
    omegas = encoding.frequencies(d_model)
    return [(i, float(omegas[i])) for i in encoding.hand_indices(d_model)]


def hand_labels(d_model: int) -> list[str]:
    """The legend's entry for each drawn hand."""
    labels = []
    for i, omega in hands(d_model):
        period = 2 * math.pi / omega
        shown = f"{period:.1f}" if period < 100 else f"{period:,.0f}"
        labels.append(f"hand {i}: period {shown}")
    return labels


def marks(pos: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions, values) of the marks where each drawn hand crosses pos."""
    at_pos = encoding.encoding([pos], d_model)[0]
    values = np.array([at_pos[2 * i] for i, _ in hands(d_model)])
    return np.full(len(values), pos), values


def dot_title(d_model: int) -> str:
    """The dot-product plot's title."""
    return f"Dot product, {d_model // 2} hands"


def dot_range(rows: np.ndarray, closed: np.ndarray) -> tuple[float, float]:
    """The dot plot's y range, padded as HoloViews pads a curve."""
    low = min(rows.min(), closed.min())
    high = max(rows.max(), closed.max())
    pad = (high - low) * DOT_PADDING
    return float(low - pad), float(high + pad)


def frame(values: Values) -> Frame:
    """Everything a pos or d_model step changes on screen."""
    pos, d_model = int(values["pos"]), int(values["d_model"])
    table = hand_table(d_model)
    rows, closed = offset_curves(pos, d_model)
    at, crossing = marks(pos, d_model)
    low, high = dot_range(rows, closed)
    result: Frame = {}
    for n, label in enumerate(hand_labels(d_model)):
        result[f"hand{n}"] = {"data": {"value": table[:, n]}}
        result[f"hand{n}:label"] = {"label": label}
    result["line"] = {"location": pos}
    result["marks"] = {"data": {"position": at, "value": crossing}}
    result["rows"] = {"data": {DOT: rows}}
    result["closed"] = {"data": {DOT: closed}}
    result["dot"] = {"title.text": dot_title(d_model), "y_range.start": low, "y_range.end": high}
    return result


# A gap between the two curves below this is floating-point noise.
ROUNDING = 1e-9


def gap(values: Values) -> str:
    """The largest gap between the two curves, as text.

    Below ``ROUNDING`` it is floating-point noise, whose digits differ between
    machines (the build's CPU and the reader's WebAssembly): the page's text and
    the live figure must say the same, so it is named as what it is.
    """
    rows, closed = offset_curves(int(values["pos"]), int(values["d_model"]))
    largest = float(np.max(np.abs(rows - closed)))
    return "under 1e-9 (rounding error)" if largest < ROUNDING else f"{largest:.1e}"


def readout(values: Values) -> str:
    """pos, d_model, the slowest hand and the largest gap between the two curves."""
    pos, d_model = int(values["pos"]), int(values["d_model"])
    return (
        f"pos = **{pos}** · d_model = **{d_model}** "
        f"({d_model // 2} hands, slowest turns once per "
        f"{2 * math.pi / encoding.frequencies(d_model)[-1]:,.0f} positions) · "
        f"largest gap between the two curves: {gap(values)}"
    )


def describe(values: Values) -> str:
    """A short sentence saying what the plots show at the current values."""
    pos, d_model = int(values["pos"]), int(values["d_model"])
    at_pos = encoding.encoding([pos], d_model)[0]
    read = ", ".join(f"{at_pos[2 * i]:+.2f}" for i, _ in hands(d_model))
    rows, closed = offset_curves(pos, d_model)
    return (
        f"Left: four sine curves against position; at pos {pos} the hands read "
        f"{read}. Right: the dot product goes from {rows[0]:.1f} at offset 0 to "
        f"{rows[-1]:.1f} at offset {OFFSETS[-1]}; its two curves differ by "
        f"{gap(values)}."
    )


def table(values: Values) -> tuple[str, list[str], list[tuple]]:
    """The dot-product curves every 10 offsets."""
    pos, d_model = int(values["pos"]), int(values["d_model"])
    rows, closed = offset_curves(pos, d_model)
    return (
        f"PE(pos)·PE(pos+k) at pos = {pos}, d_model = {d_model}",
        ["offset k", "from rows", "Σ cos(ωᵢk)"],
        [(int(k), f"{rows[k]:.3f}", f"{closed[k]:.3f}") for k in OFFSETS[::10]],
    )
