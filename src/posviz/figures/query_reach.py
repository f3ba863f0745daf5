"""Figure 4121 — Which pixels one query sees.

A scheme says which pixels each query attends to. After one layer a query
holds what it attends to; after two, what those pixels attended to as well:
``spread`` gives, for a set of pixels, the union of the sets they attend, so
the reach after L layers is ``spread`` applied L times to the query alone.

Block schemes follow the local attention of the Image Transformer (Parmar et
al., 2018) without its causal mask:

* 1D: pixels in raster order are cut into query blocks of ``query_length``
  pixels; each block attends to itself and the ``memory_length`` pixels before it.
* 2D: the image is cut into query blocks of ``block_height``×``block_width``;
  each attends to a memory rectangle extended ``memory_above`` rows above and
  ``memory_side`` columns to the left and to the right.
"""

from dataclasses import dataclass, fields

import numpy as np
import param

from posviz.figures.model import Figure, Plot, Slider

# Every query attends to: every pixel; a window around it; its 1D or 2D query
# block and that block's memory; its row and its column.
SCHEMES = ("global", "local", "block-1d", "block-2d", "axial")
# What the scheme buttons say.
LABELS = {
    "global": "global",
    "local": "local 7×7",
    "block-1d": "1D block",
    "block-2d": "2D block",
    "axial": "axial",
}
# Cell values: 0 not reached, 1 reached, 2 the query itself.
COLOURS = ["#f4f5f7", "#8fb8e6", "#0b2d5c"]


@dataclass(frozen=True)
class Geometry:
    """Sizes the schemes use; the defaults are the ones the figure shows."""

    window: int = 7
    query_length: int = 8
    memory_length: int = 16
    block_height: int = 4
    block_width: int = 4
    memory_above: int = 4
    memory_side: int = 4


def _dilate(mask: np.ndarray, radius: int) -> np.ndarray:
    """Union of (2·radius+1)² squares centred on the mask's pixels, clipped."""
    out = mask.copy()
    for axis in (0, 1):
        grown = out.copy()
        for shift in range(1, radius + 1):
            if axis == 0:
                grown[shift:, :] |= out[:-shift, :]
                grown[:-shift, :] |= out[shift:, :]
            else:
                grown[:, shift:] |= out[:, :-shift]
                grown[:, :-shift] |= out[:, shift:]
        out = grown
    return out


def _spread_1d_blocks(mask: np.ndarray, geometry: Geometry) -> np.ndarray:
    flat = mask.ravel()
    out = np.zeros_like(flat)
    length = geometry.query_length
    for block in np.unique(np.flatnonzero(flat) // length):
        out[max(0, block * length - geometry.memory_length) : (block + 1) * length] = True
    return out.reshape(mask.shape)


def _spread_2d_blocks(mask: np.ndarray, geometry: Geometry) -> np.ndarray:
    out = np.zeros_like(mask)
    rows, cols = np.nonzero(mask)
    height, width = geometry.block_height, geometry.block_width
    for block_row, block_col in set(
        zip((rows // height).tolist(), (cols // width).tolist(), strict=True)
    ):
        top = max(0, block_row * height - geometry.memory_above)
        left = max(0, block_col * width - geometry.memory_side)
        out[
            top : (block_row + 1) * height, left : (block_col + 1) * width + geometry.memory_side
        ] = True
    return out


def spread(mask: np.ndarray, scheme: str, geometry: Geometry = Geometry()) -> np.ndarray:
    """Union of the pixels attended by every pixel in ``mask``."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
    if not mask.any():
        return mask.copy()
    if scheme == "global":
        return np.ones_like(mask)
    if scheme == "local":
        return _dilate(mask, geometry.window // 2)
    if scheme == "block-1d":
        return _spread_1d_blocks(mask, geometry)
    if scheme == "block-2d":
        return _spread_2d_blocks(mask, geometry)
    return mask.any(axis=1)[:, None] | mask.any(axis=0)[None, :]  # axial


def reach(
    side: int, row: int, col: int, scheme: str, layers: int = 1, geometry: Geometry = Geometry()
) -> np.ndarray:
    """Boolean (side, side) map of the pixels that reach the query at (row, col)."""
    if not (0 <= row < side and 0 <= col < side):
        raise ValueError(f"query ({row}, {col}) is outside a {side}×{side} image")
    mask = np.zeros((side, side), dtype=bool)
    mask[row, col] = True
    for _ in range(layers):
        mask = spread(mask, scheme, geometry)
    return mask


def spans(cols) -> str:
    """Column indices as ranges: 0–3, 7."""
    found, start = [], cols[0]
    for a, b in zip(cols, [*cols[1:], None], strict=True):
        if b is None or b != a + 1:
            found.append(f"{start}–{a}" if a != start else f"{a}")
            start = b
    return ", ".join(found)


def size(label: str, default: int, high: int, doc: str, low: int = 1) -> Slider:
    """A block-size slider."""
    return Slider(label=label, default=default, bounds=(low, high), doc=doc)


class QueryReach(Figure):
    """Which pixels reach one query pixel after one and two layers, per scheme."""

    figure_id = 4121
    title = "Which pixels does one query see?"
    caption = (
        "First pick *axial* and drag the query into a corner: the cross through it still spans "
        "the whole row and the whole column. The window and the block sets lose what falls "
        "outside the image, but only at the edges they reach towards: the window at all four, "
        "the 1D block only at the top (its memory runs backwards in raster order), the 2D block"
        " at the top and the sides. The query is the darkest cell. Shaded cells are the pixels "
        "whose information reaches it: after one layer on the left, after two layers stacked on"
        " the right. The schemes: *global* (every pixel), *local* (a 7×7 window), *1D block* "
        "and *2D block* (query blocks sharing a memory, as in the Image Transformer, drawn "
        "without its causal mask; picking one shows the sliders for its sizes), and *axial* "
        "over full rows and columns (m = S): each query's whole cross, its row and its column, "
        "in one layer, the criss-cross layer of CCNet. Two such layers reach what a row pass "
        "followed by a column pass reaches, at about twice the cost."
    )
    numbers = {"1": "a name, not a quantity: 1D block", "2": "a name: 2D block"}
    stepped_slider = "row"  # the benchmarks move the query
    # Five named buttons do not fit side by side in the controls' column.
    widgets = {"scheme": {"type": "buttons", "orientation": "vertical", "width": 220}}
    # Links made when the scheme was a slider name it by number.
    link_aliases = {"scheme": {str(n): name for n, name in enumerate(SCHEMES)}}
    # The block sizes change nothing under the other schemes: shown only with theirs.
    used_when = {
        **dict.fromkeys(("query_length", "memory_length"), ("scheme", ("block-1d",))),
        **dict.fromkeys(
            ("block_height", "block_width", "memory_above", "memory_side"),
            ("scheme", ("block-2d",)),
        ),
    }

    scheme = param.Selector(
        default="local",
        objects={LABELS[name]: name for name in SCHEMES},
        doc="Which pixels each query attends to: " + ", ".join(LABELS.values()) + ".",
    )
    side = size("image side", 16, 64, "Side of the image, in pixels.", low=8)
    row = size("query row", 8, 63, "Row of the query pixel (0 at the top).", low=0)
    col = size("query column", 8, 63, "Column of the query pixel (0 at the left).", low=0)
    query_length = size(
        "1D: query block l_q", 8, 64, "1D block: pixels in a query block, l_q (raster order)."
    )
    memory_length = size(
        "1D: memory before l_m",
        16,
        256,
        "1D block: pixels before the block that it also attends, l_m.",
        low=0,
    )
    block_height = size("2D: block height h_q", 4, 16, "2D block: rows in a query block, h_q.")
    block_width = size("2D: block width w_q", 4, 16, "2D block: columns in a query block, w_q.")
    memory_above = size("2D: memory above h_m", 4, 16, "2D block: memory rows above, h_m.", low=0)
    memory_side = size(
        "2D: memory left/right w_m", 4, 16, "2D block: memory columns left and right, w_m.", low=0
    )

    def __init__(self, **params):
        # A query asked for outside the image is refused, not quietly moved inside it.
        side = params.get("side", self.param.side.default)
        for name in ("row", "col"):
            value = params.get(name)
            if isinstance(side, int) and isinstance(value, int) and value >= side:
                raise ValueError(
                    f"QueryReach: {name} {value} is outside a {side}×{side} image; "
                    f"its bounds are 0 to {side - 1}."
                )
        super().__init__(**params)

    @param.depends("side", watch=True, on_init=True)
    def _fit_query_to_image(self):
        last = self.side - 1
        with param.parameterized.batch_call_watchers(self):
            self.param.row.bounds = (0, last)
            self.param.col.bounds = (0, last)
            self.param.update(row=min(self.row, last), col=min(self.col, last))

    def reached(self, layers: int) -> np.ndarray:
        """Boolean (side, side) map of the pixels that reach the query after ``layers``."""
        sizes = {
            field.name: getattr(self, field.name)
            for field in fields(Geometry)
            if field.name != "window"
        }
        return reach(self.side, self.row, self.col, self.scheme, layers, Geometry(**sizes))

    def frame(self):
        """Both grids' cells (row j drawn at y = j, row 0 on top), titles and extents."""
        side, half = float(self.side), self.side - 0.5
        result = {}
        for layers in (1, 2):
            mask = self.reached(layers)
            grid = mask.astype(float)
            grid[self.row, self.col] = 2
            name = "one layer" if layers == 1 else f"{layers} layers"
            result[f"cells{layers}"] = {"data": {"image": [grid], "dw": [side], "dh": [side]}}
            result[f"layers{layers}"] = {
                "title.text": f"{name}: {int(mask.sum())} of {self.side**2} pixels",
                "x_range.start": -0.5,
                "x_range.end": half,
                "y_range.start": half,  # inverted: row 0 on top
                "y_range.end": -0.5,
            }
        return result

    def draw(self, hv, frame):
        """The grid after one layer (left) and after two (right)."""
        half = self.side - 0.5
        return [
            Plot(
                f"layers{layers}",
                {
                    f"cells{layers}": hv.Image(
                        frame[f"cells{layers}"]["data"]["image"][0],
                        bounds=(-0.5, -0.5, half, half),
                        kdims=["column", "row"],
                        vdims="reached",
                    ).opts(cmap=COLOURS, clim=(0, 2), colorbar=False, tools=["hover"])
                },
                frame_width=300,
                frame_height=300,
                invert_yaxis=True,
                xaxis=None,
                yaxis=None,
            )
            for layers in (1, 2)
        ]

    def readout(self):
        """The scheme, the query and how many pixels reach it after one and two layers."""
        return (
            f"scheme **{LABELS[self.scheme]}** · query at row **{self.row}**, "
            f"column **{self.col}** of a {self.side}×{self.side} image · "
            f"reach: **{self.reached(1).sum()}** pixels "
            f"after one layer, **{self.reached(2).sum()}** after two"
        )

    def describe(self):
        """The grids' size, the query and its reach."""
        return (
            f"Two {self.side}×{self.side} pixel grids with the query at row {self.row}, "
            f"column {self.col}: {int(self.reached(1).sum())} pixels reach it after one layer, "
            f"{int(self.reached(2).sum())} after two."
        )

    def table(self):
        """Per row, the columns that reach the query after one layer."""
        mask, twice = self.reached(1), self.reached(2)
        rows = [
            (r, int(cols.size), spans(cols), int(twice[r].sum()))
            for r in range(self.side)
            if (cols := np.flatnonzero(mask[r])).size
        ]
        return (
            f"Pixels that reach the query at row {self.row}, column {self.col}",
            ["row", "pixels, one layer", "columns, one layer", "pixels, two layers"],
            rows,
        )
