"""Figure 0 — A new figure.

The template ``posviz new figure NAME --id N`` copies: it replaces the class
name ``NewFigure``, the id in ``figure_id = 0`` and the title ``"A new figure"``
(here and above), and drops this paragraph. As written, the figure passes the
whole test suite; make it yours, then add its oracle (CONTRIBUTING.md).
"""

import holoviews as hv
import numpy as np
import param

from posviz.figures.base import QUIET, Figure, Slider

X = np.arange(0, 11)


def frame(values) -> dict:
    """What the slider changes on screen (numpy only): model key → its new properties."""
    slope = values["slope"]
    return {
        "line-data": {"data": {"x": X, "y": slope * X}},  # the line's data source
        "line": {"title.text": f"y = {slope} · x"},  # the plot
    }


class NewFigure(Figure):
    """A straight line through the origin whose slope is the slider."""

    figure_id = 0
    title = "A new figure"
    caption = (
        "Move the slope and watch the line turn about the origin: the steeper it is, "
        "the faster y grows with x."
    )

    slope = Slider(default=1, bounds=(0, 10), label="slope", doc="How much y grows per unit of x.")

    frame_of = staticmethod(frame)  # a step applies it to the drawn plot, in place

    @param.depends()  # drawn once, at the opening values; steps come from the frame
    def line(self):
        """The line y = slope · x."""
        drawn = frame(self.values())
        data = drawn["line-data"]["data"]
        return hv.Curve((data["x"], data["y"]), "x", "y").opts(
            title=drawn["line"]["title.text"],
            xlim=(0, 10),
            ylim=(0, 100),  # fixed ranges that hold every slope: the frame need not move them
            hooks=[self.names_plot("line"), self.names_data("line-data")],
            **QUIET,
        )

    def plots(self):
        """The live plots, left to right."""
        return [hv.DynamicMap(self.line)]

    def readout(self) -> str:
        """The current values, as Markdown under the plot."""
        return f"slope = **{self.slope}** · y at x = 10 is **{10 * self.slope}**"
