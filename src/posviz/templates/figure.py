"""Figure 0 — A new figure.

The template ``posviz new figure NAME --id N`` copies: it replaces the class
name ``NewFigure``, the id in ``figure_id = 0`` and the title ``"A new figure"``
(here and above), and drops this paragraph; it writes the figure's oracle,
``tests/oracles/<module>.py``, from ``oracle.py``. As written, the two pass the
whole test suite; make the figure yours, then make its oracle compute what it
draws (CONTRIBUTING.md, 'What a figure draws').
"""

import numpy as np

from posviz.figures.model import Figure, Plot, Slider

X = np.arange(0, 11)


class NewFigure(Figure):
    """A straight line through the origin whose slope is the slider."""

    figure_id = 0
    title = "A new figure"
    caption = (
        "Move the slope and watch the line turn about the origin: the steeper it is, "
        "the faster y grows with x."
    )

    slope = Slider(default=1, bounds=(0, 10), label="slope", doc="How much y grows per unit of x.")

    def frame(self):
        """What the slider changes on screen: element or plot key → its new properties."""
        return {
            "line": {"data": {"y": self.slope * X}},
            "plot": {"title.text": f"y = {self.slope} · x"},
        }

    def draw(self, hv, frame):
        """The line y = slope · x, in fixed ranges that hold every slope."""
        line = hv.Curve((X, frame["line"]["data"]["y"]), "x", "y")
        return [Plot("plot", {"line": line}, xlim=(0, 10), ylim=(0, 100))]

    def readout(self):
        """The current values, as Markdown under the plot."""
        return f"slope = **{self.slope}** · y at x = 10 is **{10 * self.slope}**"
