"""Figure 4121's frame: both grids' cells, titles and, for a new image side, extents."""

import numpy as np

from posviz.frames import Frame, Values
from posviz.maths import reach

GEOMETRY = (
    "query_length",
    "memory_length",
    "block_height",
    "block_width",
    "memory_above",
    "memory_side",
)


def geometry(values: Values) -> reach.Geometry:
    """The block sizes in ``values``, for ``maths.reach``."""
    return reach.Geometry(**{name: int(values[name]) for name in GEOMETRY})


def reached(values: Values, layers: int) -> np.ndarray:
    """Boolean (side, side) map of the pixels that reach the query after ``layers``."""
    side, row, col = (int(values[n]) for n in ("side", "row", "col"))
    return reach.reach(side, row, col, str(values["scheme"]), layers, geometry(values))


def cells(values: Values, layers: int) -> tuple[np.ndarray, str]:
    """A grid's cells (0 not reached, 1 reached, 2 the query) and its title."""
    side = int(values["side"])
    mask = reached(values, layers)
    grid = mask.astype(float)
    grid[int(values["row"]), int(values["col"])] = 2
    name = "one layer" if layers == 1 else f"{layers} layers"
    return grid, f"{name}: {int(mask.sum())} of {side**2} pixels"


def frame(values: Values) -> Frame:
    """Everything any step changes on screen."""
    side = float(values["side"])
    half = side - 0.5
    result: Frame = {}
    for layers in (1, 2):
        grid, title = cells(values, layers)
        # HoloViews hands Bokeh the cells unflipped: Bokeh draws row j at y = j.
        result[f"cells{layers}"] = {"data": {"image": [grid], "dw": [side], "dh": [side]}}
        result[f"layers{layers}"] = {
            "title.text": title,
            "x_range.start": -0.5,
            "x_range.end": half,
            "y_range.start": half,  # inverted: row 0 on top
            "y_range.end": -0.5,
        }
    return result


# What the scheme buttons say, for each of reach.SCHEMES.
LABELS = {
    "global": "global",
    "local": "local 7×7",
    "block-1d": "1D block",
    "block-2d": "2D block",
    "axial": "axial",
}


def bounds(values: Values) -> dict[str, tuple[int, int]]:
    """The sliders whose bounds follow the others: the query stays inside the image."""
    last = int(values["side"]) - 1
    return {"row": (0, last), "col": (0, last)}


def readout(values: Values) -> str:
    """The scheme, the query and how many pixels reach it after one and two layers."""
    side, row, col = (int(values[n]) for n in ("side", "row", "col"))
    one, two = reached(values, 1).sum(), reached(values, 2).sum()
    return (
        f"scheme **{LABELS[str(values['scheme'])]}** · query at row "
        f"**{row}**, column **{col}** of a {side}×{side} image · "
        f"reach: **{one}** pixels after one layer, **{two}** after two"
    )


def describe(values: Values) -> str:
    """A short sentence saying what the plots show at the current values."""
    side, row, col = (int(values[n]) for n in ("side", "row", "col"))
    return (
        f"Two {side}×{side} pixel grids with the query at row {row}, "
        f"column {col}: {int(reached(values, 1).sum())} pixels reach it after one layer, "
        f"{int(reached(values, 2).sum())} after two."
    )


def table(values: Values) -> tuple[str, list[str], list[tuple]]:
    """Per row, the columns that reach the query after one layer."""
    mask, twice = reached(values, 1), reached(values, 2)
    rows = []
    for r in range(int(values["side"])):
        cols = np.flatnonzero(mask[r])
        if cols.size:
            rows.append((r, int(cols.size), spans(cols), int(twice[r].sum())))
    return (
        f"Pixels that reach the query at row {int(values['row'])}, column {int(values['col'])}",
        ["row", "pixels, one layer", "columns, one layer", "pixels, two layers"],
        rows,
    )


def spans(cols) -> str:
    """Column indices as ranges: 0–3, 7."""
    found, start = [], cols[0]
    for a, b in zip(cols, [*cols[1:], None], strict=True):
        if b is None or b != a + 1:
            found.append(f"{start}–{a}" if a != start else f"{a}")
            start = b
    return ", ".join(found)
