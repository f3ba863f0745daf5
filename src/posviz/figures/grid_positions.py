"""Figure 2010 — Position on a grid of patches.

An image of side S pixels cut into P×P patches gives a g×g grid, g = S // P
(the last S − g·P pixels of each side are left out). The figure compares, from
one chosen patch to every other, how three schemes tell patches apart:

* **1-D raster.** ViT (Dosovitskiy et al., 2021, §3.1) learns one embedding per
  patch in raster order (row by row). Learned values cannot be computed here, so
  the figure stands in the sinusoidal encoding of the raster index
  (``posviz.maths.encoding``, Vaswani et al., 2017).
* **2-D sin-cos.** MAE (He et al., 2022) and MoCo v3 (Chen, Xie & He, 2021) use
  fixed embeddings in which half the d dimensions encode one coordinate with a
  1-D sin-cos of width d/2 and the other half the other coordinate:
  ω_i = 1/10000^(2i/(d/2)), i < d/4, and [sin(x·ω), cos(x·ω)] per coordinate.
  Laid out as MAE's ``util/pos_embed.py`` lays it out: its ``meshgrid(grid_w,
  grid_h)`` puts the column first, so the first half encodes the column and the
  second half the row (MoCo v3's code flattens the other way round). Which half
  gets which axis changes no dot product between two patches.
* **Relative bias.** Swin (Liu et al., 2021, §3.2) adds to each attention logit
  between a query and a key in the same M×M window a learned bias B̂[Δrow, Δcol],
  Δ = query − key, from a table of (2M−1)² entries. The learned values are not
  available, so the figure shows which entry each key uses: the index of Swin's
  code, (Δrow + M − 1)·(2M − 1) + (Δcol + M − 1). Windows tile the grid from the
  top left; Swin pads the grid at the bottom and right to a multiple of M, and the
  padding is not drawn.

For the sin-cos schemes the map is the cosine similarity of the embeddings (each
has length √(d/2), so it is the dot product over d/2), its colour stretched from
the least similar patch of the map (light) to the most similar (dark).
"""

import numpy as np
import param

from posviz.figures.model import Figure, Plot, Slider
from posviz.maths import encoding

SCHEMES = ("raster", "sincos", "relative")
LABELS = {"raster": "1-D raster", "sincos": "2-D sin-cos", "relative": "relative bias"}
WIDTHS = (16, 64, 256, 768)
WINDOW = 7  # Swin's window side M, in patches (Liu et al., 2021, §3.3)
ENTRIES = (2 * WINDOW - 1) ** 2
BASE = 10000.0
# Below a map's colour range: a cell that one layer does not draw.
OFF = -1
SHADES = (
    "#f7fbff",
    "#deebf7",
    "#c6dbef",
    "#9ecae1",
    "#6baed6",
    "#4292c6",
    "#2171b5",
    "#08519c",
    "#08306b",
)
ENTRY_SHADES = (
    "#440154",
    "#472d7b",
    "#3b528b",
    "#2c728e",
    "#21918c",
    "#28ae80",
    "#5ec962",
    "#addc30",
    "#fde725",
)
OUTSIDE = "#e4e7ec"  # cells outside the chosen patch's Swin window
MARK = "#e07b1a"


def ramp(anchors, steps: int) -> list[str]:
    """``steps`` colours running evenly through the hex ``anchors``, interpolated in RGB."""
    rgb = np.array([[int(a[i : i + 2], 16) for i in (1, 3, 5)] for a in anchors], dtype=float)
    where = np.linspace(0, len(anchors) - 1, steps)
    mixed = np.column_stack(
        [np.interp(where, np.arange(len(anchors)), rgb[:, k]) for k in range(3)]
    )
    return ["#" + "".join(f"{round(v):02x}" for v in colour) for colour in mixed]


def grid_side(side: int, patch: int) -> int:
    """Patches along each side of an S×S image cut into P×P patches: S // P."""
    return side // patch


def sincos_1d(positions, width: int) -> np.ndarray:
    """MAE's 1-D sin-cos of ``width`` dimensions: [sin(p·ω), cos(p·ω)], ω_i = 1/10000^(2i/width)."""
    omegas = BASE ** (-2.0 * np.arange(width // 2) / width)
    angles = np.outer(np.asarray(positions, dtype=float), omegas)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d(g: int, d: int) -> np.ndarray:
    """(g², d) fixed 2-D sin-cos embeddings in raster order, column half first (as MAE)."""
    if d % 4:
        raise ValueError(f"the 2-D sin-cos embedding needs d divisible by 4, not {d}")
    rows, cols = np.divmod(np.arange(g * g), g)
    return np.concatenate([sincos_1d(cols, d // 2), sincos_1d(rows, d // 2)], axis=1)


def raster_1d(g: int, d: int) -> np.ndarray:
    """(g², d) sinusoidal embeddings of the raster index: the stand-in for ViT's learned table."""
    return encoding.encoding(np.arange(g * g), d)


def cosine_map(table: np.ndarray, g: int, row: int, col: int) -> np.ndarray:
    """(g, g) cosine similarity of every patch's embedding with the patch at (row, col)."""
    anchor = table[row * g + col]
    dots = table @ anchor
    return (dots / (np.linalg.norm(table, axis=1) * np.linalg.norm(anchor))).reshape(g, g)


def window_of(g: int, row: int, col: int, m: int = WINDOW) -> tuple[range, range]:
    """The rows and columns of the grid in the Swin window that holds (row, col)."""
    top, left = row - row % m, col - col % m
    return range(top, min(top + m, g)), range(left, min(left + m, g))


def entry_map(g: int, row: int, col: int, m: int = WINDOW) -> np.ndarray:
    """(g, g) index into Swin's bias table for the query (row, col) and each key in its window.

    Entry (Δrow + m − 1)·(2m − 1) + (Δcol + m − 1), Δ = query − key; OFF outside the window.
    """
    grid = np.full((g, g), OFF, dtype=int)
    rows, cols = window_of(g, row, col, m)
    keys_r, keys_c = np.meshgrid(np.asarray(rows), np.asarray(cols), indexing="ij")
    grid[keys_r, keys_c] = (row - keys_r + m - 1) * (2 * m - 1) + (col - keys_c + m - 1)
    return grid


def stretched(values: np.ndarray) -> np.ndarray:
    """Values mapped linearly from [min, max] to [0, 1] (all 1 when they are all equal)."""
    low, high = values.min(), values.max()
    if high - low < 1e-12:
        return np.ones_like(values)
    return (values - low) / (high - low)


def span(cells: range) -> str:
    """A range of rows or columns as text: 0–6, or 3 alone."""
    return f"{cells[0]}–{cells[-1]}" if len(cells) > 1 else f"{cells[0]}"


class GridPositions(Figure):
    """How alike the position of one patch is to every other's, under three schemes."""

    figure_id = 2010
    title = "Position on a grid of patches"
    caption = (
        "Start with the raster scheme and look at the row above the marked patch: its last "
        "patch is shaded as dark as the patch's right-hand neighbour, because in raster "
        "order it comes just before. Switch to the sin-cos scheme: the dark cells now gather "
        "round the patch, in a cross along its row and its column, and the end of the row above "
        "fades. Move the patch, change the image side, the patch size and the width d. In each "
        "map the colour runs from the least similar patch (light) to the most similar (dark); "
        "the raster scheme uses sinusoids in place of ViT's learned embeddings. The relative "
        "scheme shows instead which entry of Swin's learned bias table each key in the "
        "patch's window uses (grey: outside the window)."
    )
    stepped_slider = "row"
    # Three long names do not fit side by side in the controls' column.
    widgets = {"scheme": {"type": "buttons", "orientation": "vertical"}, "width": "buttons"}
    # The width d sets the sin-cos embeddings; the relative bias has none.
    used_when = {"width": ("scheme", ("raster", "sincos"))}

    scheme = param.Selector(
        default="raster",
        objects={LABELS[name]: name for name in SCHEMES},
        doc="How position is given: 1-D raster (ViT), 2-D sin-cos (MAE, MoCo v3), relative "
        "bias (Swin).",
    )
    side = Slider(
        default=224,
        bounds=(128, 256),
        step=32,
        label="image side S",
        doc="Side of the square image, in pixels.",
    )
    patch = Slider(
        default=16,
        bounds=(16, 32),
        step=8,
        label="patch size P",
        doc="Side of a square patch, in pixels: the grid is S // P patches a side.",
    )
    # Declared bounds hold in every grid the sliders allow (at least 128 // 32 = 4 a
    # side); each figure widens them to its own grid (_fit_patch_to_grid).
    row = Slider(
        default=3, bounds=(0, 3), label="patch row", doc="Row of the chosen patch (0 at the top)."
    )
    col = Slider(
        default=0,
        bounds=(0, 3),
        label="patch column",
        doc="Column of the chosen patch (0 at the left).",
    )
    width = param.Selector(
        default=64,
        objects=list(WIDTHS),
        label="embedding width d",
        doc="Dimensions of each position embedding (sin-cos schemes; a multiple of 4).",
    )

    def __init__(self, **params):
        # A patch asked for outside the grid is refused, not quietly moved inside it.
        side = params.get("side", self.param.side.default)
        patch = params.get("patch", self.param.patch.default)
        where = {name: params.pop(name) for name in ("row", "col") if name in params}
        if isinstance(side, int) and isinstance(patch, int) and patch > 0:
            g = grid_side(side, patch)
            for name, value in where.items():
                if isinstance(value, int) and value >= g:
                    raise ValueError(
                        f"GridPositions: {name} {value} is outside a {g}×{g} grid; "
                        f"its bounds are 0 to {g - 1}."
                    )
        super().__init__(**params)
        self.param.update(**where)

    @param.depends("side", "patch", watch=True, on_init=True)
    def _fit_patch_to_grid(self):
        last = self.grid() - 1
        with param.parameterized.batch_call_watchers(self):
            self.param.row.bounds = (0, last)
            self.param.col.bounds = (0, last)
            self.param.update(row=min(self.row, last), col=min(self.col, last))

    def grid(self) -> int:
        """Patches along each side of the image."""
        return grid_side(self.side, self.patch)

    def similarities(self) -> np.ndarray:
        """(g, g) cosine similarity to the chosen patch under the current sin-cos scheme."""
        g = self.grid()
        table = raster_1d(g, self.width) if self.scheme == "raster" else sincos_2d(g, self.width)
        return cosine_map(table, g, self.row, self.col)

    def entries(self) -> np.ndarray:
        """(g, g) Swin bias-table entry each key uses for the chosen query; OFF outside."""
        return entry_map(self.grid(), self.row, self.col)

    def before(self) -> tuple[int, int] | None:
        """The patch just before the chosen one in raster order, or None for the first."""
        index = self.row * self.grid() + self.col
        return divmod(index - 1, self.grid()) if index else None

    def vertical_neighbour(self) -> tuple[int, int]:
        """The patch directly above the chosen one, or below it on the top row."""
        return (self.row - 1 if self.row else self.row + 1, self.col)

    def frame(self):
        """Both layers' cells (row j drawn at y = j, row 0 on top), the mark, title, ranges."""
        g = self.grid()
        off = np.full((g, g), OFF, dtype=int)
        if self.scheme == "relative":
            shaded, entries = off, self.entries()
            name = f"Swin: table entries (of {ENTRIES})"
        else:
            shaded, entries = stretched(self.similarities()), off
            name = f"{LABELS[self.scheme]}: patch ({self.row}, {self.col})"
        extent = {"dw": [float(g)], "dh": [float(g)]}
        return {
            "similarity": {"data": {"image": [shaded], **extent}},
            "entries": {"data": {"image": [entries], **extent}},
            "mark": {"data": {"column": [self.col], "row": [self.row]}},
            "grid": {
                "title.text": name,
                "x_range.start": -0.5,
                "x_range.end": g - 0.5,
                "y_range.start": g - 0.5,  # inverted: row 0 on top
                "y_range.end": -0.5,
            },
        }

    def draw(self, hv, frame):
        """The similarity layer, the Swin entries over it, and the chosen patch's mark."""
        half = self.grid() - 0.5
        bounds = (-0.5, -0.5, half, half)
        mark = frame["mark"]["data"]
        elements = {
            "similarity": hv.Image(
                frame["similarity"]["data"]["image"][0],
                bounds=bounds,
                kdims=["column", "row"],
                vdims="similarity",
            ).opts(cmap=ramp(SHADES, 64), clim=(0, 1), clipping_colors={"min": OUTSIDE}),
            "entries": hv.Image(
                frame["entries"]["data"]["image"][0],
                bounds=bounds,
                kdims=["column", "row"],
                vdims="entry",
            ).opts(
                cmap=ramp(ENTRY_SHADES, ENTRIES),
                clim=(0, ENTRIES - 1),
                clipping_colors={"min": "transparent"},
            ),
            "mark": hv.Points((mark["column"], mark["row"]), ["column", "row"]).opts(
                color=MARK, line_color="white", line_width=2, size=13
            ),
        }
        return [
            Plot(
                "grid",
                elements,
                frame_width=300,
                frame_height=300,
                invert_yaxis=True,
                xaxis=None,
                yaxis=None,
            )
        ]

    def readout(self):
        """The scheme, the grid, the chosen patch and what it is most alike."""
        g = self.grid()
        grid = (
            f"image **{self.side}** px ÷ patch **{self.patch}** px → **{g} × {g}** = "
            f"{g * g} patches"
        )
        where = f"patch row **{self.row}**, column **{self.col}**"
        if self.scheme == "relative":
            rows, cols = window_of(g, self.row, self.col)
            used = self.entries()
            return (
                f"**relative bias** (Swin): window M = {WINDOW}, a table of "
                f"{2 * WINDOW - 1} × {2 * WINDOW - 1} = **{ENTRIES}** learned entries "
                f"(values unknown: the map shows which entry) · {grid}  \n"
                f"{where}, in the window of rows {span(rows)}, columns {span(cols)} · "
                f"itself: entry **{used[self.row, self.col]}** · "
                f"{int((used >= 0).sum())} keys, each a different entry"
            )
        stand_in = (
            " (sinusoidal stand-in for ViT's learned table)" if self.scheme == "raster" else ""
        )
        found = " · ".join(f"{name}: **{value:.2f}**" for name, value in self.comparisons())
        return (
            f"**{LABELS[self.scheme]}**{stand_in}, d = **{self.width}** · {grid}  \n"
            f"{where} · cosine similarity to {found}"
        )

    def comparisons(self) -> list[tuple[str, float]]:
        """(which patch, its similarity): above (below on the top row), and before it."""
        sims = self.similarities()
        up = self.vertical_neighbour()
        found = [(f"the patch {'above' if self.row else 'below'}", float(sims[up]))]
        before = self.before()
        if before is not None:
            which = "the end of the row above" if self.col == 0 else "its left neighbour"
            name = f"the patch before it in raster order, ({before[0]}, {before[1]}), {which}"
            found.append((name, float(sims[before])))
        return found

    def describe(self):
        """The grid, the scheme and the key similarities (or the window and its entries)."""
        g = self.grid()
        head = f"A {g} × {g} grid of patches ({self.side}-pixel image, {self.patch}-pixel patches)"
        if self.scheme == "relative":
            rows, cols = window_of(g, self.row, self.col)
            return (
                f"{head} with the Swin window of rows {span(rows)} and columns {span(cols)} "
                f"around the patch at row {self.row}, column {self.col}, each key coloured by "
                f"the entry, 0 to {ENTRIES - 1}, of the bias table it uses; the patch itself uses "
                f"entry {self.entries()[self.row, self.col]} and the rest of the grid is outside "
                "the window."
            )
        found = "; ".join(f"{value:.2f} for {name}" for name, value in self.comparisons())
        return (
            f"{head} shaded by the cosine similarity of their {LABELS[self.scheme]} embeddings "
            f"(d = {self.width}) to the patch at row {self.row}, column {self.col}: {found}; "
            f"lowest {self.similarities().min():.2f}."
        )

    def table(self):
        """The map row by row: similarities, or the entries inside the window."""
        g = self.grid()
        columns = ["row", *(str(c) for c in range(g))]
        if self.scheme == "relative":
            used = self.entries()
            rows, _ = window_of(g, self.row, self.col)
            body = [(r, *(str(e) if e >= 0 else "" for e in used[r])) for r in rows]
            return (
                f"Bias-table entry of each key for the query at ({self.row}, {self.col}), "
                "in its window",
                columns,
                body,
            )
        sims = self.similarities()
        body = [(r, *(f"{s:.2f}" for s in sims[r])) for r in range(g)]
        return (
            f"Cosine similarity to the patch at ({self.row}, {self.col}), row by row",
            columns,
            body,
        )
