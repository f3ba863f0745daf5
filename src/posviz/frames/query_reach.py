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
