"""Figure 0 — A new figure.

The template ``posviz new figure NAME --id N`` copies: it replaces the class
name ``NewFigure``, the id in ``figure_id = 0`` and the title ``"A new figure"``
(here and above), and drops this paragraph. As written, the figure passes the
whole test suite; make it yours, then add its oracle (CONTRIBUTING.md).
"""

import holoviews as hv
import numpy as np
import param

from posviz.figures.base import QUIET, Figure, Slider, name_plot


class NewFigure(Figure):
    """A straight line through the origin whose slope is the slider."""

    figure_id = 0
    title = "A new figure"
    caption = (
        "Move the slope and watch the line turn about the origin: the steeper it is, "
        "the faster y grows with x."
    )

    slope = Slider(default=1, bounds=(0, 10), label="slope", doc="How much y grows per unit of x.")

    @param.depends("slope")
    def line(self):
        """The line y = slope · x."""
        x = np.arange(0, 11)
        return hv.Curve((x, self.slope * x), "x", "y").opts(
            framewise=True,  # the axes follow the slope
            hooks=[name_plot(f"posviz-{self.figure_id}-line")],
            **QUIET,
        )

    def plots(self):
        """The live plots, left to right."""
        return [hv.DynamicMap(self.line)]

    def readout(self) -> str:
        """The current values, as Markdown under the plot."""
        return f"slope = **{self.slope}** · y at x = 10 is **{10 * self.slope}**"
