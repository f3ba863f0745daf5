"""Figure 7256 — What one attention layer costs on an image."""

import holoviews as hv
import numpy as np
import param

from posviz.figures.base import PALETTE, QUIET, Figure, Slider
from posviz.frames import attention_cost as frames
from posviz.frames.attention_cost import SIDES, Y
from posviz.maths import cost

LABELS = {"global": "global  S⁴", "window": "k×k window  S²·k²", "axial": "axial  2·S²·m"}
COLOURS = dict(zip(cost.SCHEMES, PALETTE, strict=False))


class AttentionCost(Figure):
    """Entries of one attention layer against image side, for global, window and axial."""

    figure_id = 7256
    title = "What one attention layer costs on an image"
    caption = (
        "Try k = 8 and m = 32 first: the window curve and the axial curve lie on top of each "
        "other. Both grow as S², so they tie wherever k² = 2m; move either slider and the "
        "cheaper one drops below. Each curve counts the entries of one layer's attention "
        "matrix on an S×S image, on a log10 scale against the image side: S⁴ for global "
        "attention, S²·k² for a k×k window, and 2·S²·m for an axial layer, whose queries "
        "attend m pixels along their row and m along their column. Where the image side is "
        "below k or m, the window or the span is clipped to it."
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
        """The three cost curves, log10, with a dotted line at S = k.

        Drawn once: a k or m step changes only the curves' y values, the
        dotted line and the title (the ranges are fixed), the figure's frame
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
        return hv.Overlay([*curves, tie]).opts(
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

    def readout(self) -> str:
        """k, m, the window/axial ratio and which is cheaper, and where curves are clipped."""
        ratio = cost.window_to_axial(self.k, self.m)
        verdict = (
            "they tie"
            if ratio == 1
            else "the window is cheaper"
            if ratio < 1
            else "axial is cheaper"
        )
        clipped = []
        if self.k > 1:
            clipped.append(f"the window is clipped to S for S < {self.k}")
        if self.m > 1:
            clipped.append(f"the span is clipped to S for S < {self.m}")
        return (
            f"k = **{self.k}**, m = **{self.m}** · window / axial = k²/(2m) = "
            f"{self.k**2}/{2 * self.m} = **{ratio:.2f}**: {verdict} "
            f"(on images large enough for neither to be clipped).  \n"
            f"The dotted line marks S = k; {'; '.join(clipped) or 'nothing is clipped'}."
        )

    def describe(self) -> str:
        """A short sentence saying what the plots show at the current values."""
        at = self.entries(np.array([64]))
        return (
            "Log-scale curves of attention entries per layer against image side; at S = 64 "
            + ", ".join(f"{LABELS[s]} {float(v[0]):.3g}" for s, v in at.items())
            + "."
        )

    def table(self) -> tuple[str, list[str], list[tuple]]:
        """Entries per layer at a few image sides."""
        sides = np.array([8, 16, 32, 64, 128, 256])
        entries = self.entries(sides)
        return (
            f"Attention entries per layer, k = {self.k}, m = {self.m}",
            ["image side S", *[LABELS[s] for s in entries]],
            [
                (int(side), *[f"{float(v[n]):.4g}" for v in entries.values()])
                for n, side in enumerate(sides)
            ],
        )
