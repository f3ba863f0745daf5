"""Figure 0 — what "A new figure" draws, computed apart from the figure.

The oracle ``posviz new figure`` writes beside the figure module (CONTRIBUTING.md,
'What a figure draws'): it checks the template's line, y = slope · x, and drops this
paragraph. When the figure draws something else, the oracle tests fail until this
file computes the new drawing from the slider values, without the figure's code.
"""

from posviz.drawing import plots
from tests.oracles import rendered_sources


def drawn_and_expected(figure, values):
    """The line's heights as drawn, and slope · x for x = 0, 1, …, 10."""
    (line,) = rendered_sources(plots(figure)[0])
    return {"line": line["y"]}, {"line": [values["slope"] * x for x in range(11)]}
