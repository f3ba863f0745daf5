"""Figure 7256 — What one attention layer costs on an image."""

import holoviews as hv
import numpy as np
import param

from posviz.figures.base import PALETTE, QUIET, Figure, Slider
from posviz.frames import attention_cost as frames
from posviz.frames.attention_cost import LABELS, SIDES, Y
from posviz.maths import cost

COLOURS = dict(zip(cost.SCHEMES, PALETTE, strict=False))


class AttentionCost(Figure):
    """Entries of one attention layer against image side, for global, window and axial."""

    figure_id = 7256

    island_height = (492, 646)  # drawn: wide, narrow (the least over widths)
    watched_plot, stepped_slider = "cost", "k"  # what the benchmarks step
    title = "What one attention layer costs on an image"
    caption = (
        "Start at the defaults, k = 7 and m = 32, and find where the two lower curves cross: at"
        " S = k²/2 = 24.5. Between S = 2 and that point the image is narrower than the span, so "
        "an axial layer costs 2·S³ and comes out cheaper; beyond it the window does. Past the "
        "dotted line at S = k and the dashed line at S = m nothing is clipped, both curves grow"
        " as S² and they run parallel, a constant factor k²/(2m) apart: try k = 8, where k² = "
        "2m and the two coincide from S = m on. Each curve counts the entries of one layer's "
        "attention matrix on an S×S image, on a log10 scale against the image side: S⁴ for "
        "global attention, S²·k² for a k×k window, and 2·S²·m for one axial layer, a row pass "
        "and a column pass of span m, whether side by side or one after the other."
    )

    k = Slider(
        default=7,
        bounds=(1, 32),
        label="k (window side)",
        doc="Side of the local window, k×k pixels.",
    )
    m = Slider(
        default=32,
        bounds=(1, 256),
        label="m (axial span)",
        doc="Pixels one axial pass attends along its axis.",
    )

    frame_of = staticmethod(frames.frame)

    def entries(self, sides) -> dict[str, np.ndarray]:
        """Entries per layer of each scheme at each image side in ``sides``."""
        return cost.entries(sides, self.k, self.m)

    def plot_title(self) -> str:
        """The plot's title at the current sliders."""
        return frames.plot_title(self.k, self.m)

    @param.depends()
    def cost_plot(self):
        """The three cost curves, log10, with a dotted line at S = k and a dashed one at S = m.

        Drawn once: a k or m step changes only the curves' y values, the
        two lines and the title (the ranges are fixed), the figure's frame
        (``posviz.frames.attention_cost``).
        """
        curves = [
            hv.Curve(
                (SIDES, np.log10(values)),
                "image side S (pixels)",
                Y,
                label=LABELS[scheme],
            ).opts(
                color=COLOURS[scheme],
                line_width=3 if scheme != "global" else 2,
                hooks=[self.names_data(scheme)],
                **QUIET,
            )
            for scheme, values in self.entries(SIDES).items()
        ]
        tie = hv.VLine(self.k).opts(
            color="#999999", line_dash="dotted", hooks=[self.names_data("tie")]
        )
        span = hv.VLine(self.m).opts(
            color="#999999", line_dash="dashed", hooks=[self.names_data("span")]
        )
        return hv.Overlay([*curves, tie, span]).opts(
            toolbar=None,
            width=620,
            height=320,
            legend_position="top_left",
            show_grid=True,
            ylim=(0, 10),
            xlim=(1, 256),
            logx=True,
            title=self.plot_title(),
            hooks=[self.names_plot("cost")],
        )

    def plots(self):
        """The cost plot."""
        return [hv.DynamicMap(self.cost_plot)]
