"""Figure 4121 — Which pixels one query sees."""

import holoviews as hv
import numpy as np
import panel as pn
import param

from posviz.figures.base import QUIET, Figure, Slider
from posviz.frames import query_reach as frames
from posviz.frames.query_reach import LABELS
from posviz.maths import reach

# Cell values: 0 not reached, 1 reached, 2 the query itself.
COLOURS = ["#f4f5f7", "#8fb8e6", "#0b2d5c"]


class QueryReach(Figure):
    """Which pixels reach one query pixel after one and two layers, per scheme."""

    figure_id = 4121

    island_height = (622, 1048)  # drawn: wide, narrow (the least over widths)
    watched_plot, stepped_slider = "layers1", "row"  # what the benchmarks step
    title = "Which pixels does one query see?"
    caption = (
        "First pick *axial* and drag the query into a corner: the cross through it still spans "
        "the whole row and the whole column. The window and the block sets lose what falls "
        "outside the image, but only at the edges they reach towards: the window at all four, "
        "the 1D block only at the top (its memory runs backwards in raster order), the 2D block"
        " at the top and the sides. The query is the darkest cell. Shaded cells are the pixels "
        "whose information reaches it: after one layer on the left, after two layers stacked on"
        " the right. The schemes: *global* (every pixel), *local* (a 7×7 window), *1D block* "
        "and *2D block* (query blocks sharing a memory, as in the Image Transformer; picking "
        "one shows the sliders for its sizes), and *axial* over full rows and columns (m = S): "
        "a row pass and a column pass side by side in one layer, the criss-cross layer of "
        "CCNet. Two such layers reach what a row pass followed by a column pass reaches, at "
        "twice the cost."
    )

    # Five named buttons do not fit side by side in the controls' column.
    widgets = {
        "scheme": {"type": pn.widgets.RadioButtonGroup, "orientation": "vertical", "width": 220}
    }
    # Links made when the scheme was a slider name it by number.
    link_aliases = {"scheme": {str(n): name for n, name in enumerate(reach.SCHEMES)}}
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
        objects={LABELS[name]: name for name in reach.SCHEMES},
        doc="Which pixels each query attends to: " + ", ".join(reach.SCHEMES) + ".",
    )
    side = Slider(
        label="image side", default=16, bounds=(8, 64), doc="Side of the image, in pixels."
    )
    row = Slider(
        label="query row", default=8, bounds=(0, 63), doc="Row of the query pixel (0 at the top)."
    )
    col = Slider(
        label="query column",
        default=8,
        bounds=(0, 63),
        doc="Column of the query pixel (0 at the left).",
    )
    query_length = Slider(
        label="1D: query block l_q",
        default=8,
        bounds=(1, 64),
        doc="1D block: pixels in a query block, l_q (raster order).",
    )
    memory_length = Slider(
        label="1D: memory before l_m",
        default=16,
        bounds=(0, 256),
        doc="1D block: pixels before the block that it also attends, l_m.",
    )
    block_height = Slider(
        label="2D: block height h_q",
        default=4,
        bounds=(1, 16),
        doc="2D block: rows in a query block, h_q.",
    )
    block_width = Slider(
        label="2D: block width w_q",
        default=4,
        bounds=(1, 16),
        doc="2D block: columns in a query block, w_q.",
    )
    memory_above = Slider(
        label="2D: memory above h_m",
        default=4,
        bounds=(0, 16),
        doc="2D block: memory rows above, h_m.",
    )
    memory_side = Slider(
        label="2D: memory left/right w_m",
        default=4,
        bounds=(0, 16),
        doc="2D block: memory columns left and right, w_m.",
    )

    frame_of = staticmethod(frames.frame)

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

    def geometry(self) -> reach.Geometry:
        """The block sizes of the sliders, for ``maths.reach``."""
        return frames.geometry(self.values())

    def reached(self, layers: int = 1) -> np.ndarray:
        """Boolean (side, side) map of the pixels that reach the query after ``layers``."""
        return frames.reached(self.values(), layers)

    def cells(self, layers: int) -> tuple[np.ndarray, str]:
        """The grid's cells (0 not reached, 1 reached, 2 the query) and its title."""
        return frames.cells(self.values(), layers)

    def _grid(self, layers: int):
        cells, title = self.cells(layers)
        half = self.side - 0.5
        # Flipped so that y equals the row index; the y axis is then inverted.
        image = hv.Image(
            np.flipud(cells),
            bounds=(-0.5, -0.5, half, half),
            kdims=["column", "row"],
            vdims="reached",
        )
        return image.opts(
            **QUIET,
            cmap=COLOURS,
            clim=(0, 2),
            frame_width=300,
            frame_height=300,
            invert_yaxis=True,
            title=title,
            colorbar=False,
            tools=["hover"],
            framewise=True,
            xaxis=None,
            yaxis=None,
            hooks=[self.names_plot(f"layers{layers}"), self.names_data(f"cells{layers}")],
        )

    # Drawn once: a step applies the figure's frame (``posviz.frames.query_reach``).
    @param.depends()
    def one_layer(self):
        """The grid after one layer."""
        return self._grid(1)

    @param.depends()
    def two_layers(self):
        """The grid after two stacked layers."""
        return self._grid(2)

    def plots(self):
        """One layer (left), two layers (right)."""
        return [hv.DynamicMap(self.one_layer), hv.DynamicMap(self.two_layers)]
