"""What each figure shows at one set of slider values: its frame, numpy only.

A *frame* maps a short model key (``"dot"``, ``"rows"``) to the properties of
that Bokeh model which the sliders change:

* a data source: ``{"data": {column: values}}`` (only the columns that move);
* a vertical line (``hv.VLine``, a Bokeh Span): ``{"location": x}``;
* a plot: ``{"title.text": ..., "x_range.start": ..., ...}`` (dotted paths);
* a legend entry (key ``"<source key>:label"``): ``{"label": text}``.

The figure names each model ``posviz-<figure id>-<key>`` when HoloViews draws
it (``Figure.names_plot`` and ``Figure.names_data``). One generic step applies
a frame to the drawn models: in Python under ``posviz serve`` and in notebooks
(``posviz.figures.base.apply_frame``), and in the exported page before Python
is up (``posviz/build/frames.js``, from frames the build computed).

Modules here import numpy and ``posviz.maths`` only: no Panel, HoloViews or
Bokeh, so that a frame can be computed wherever numpy runs.
"""

from collections.abc import Mapping

# HoloViews' default formatting of a float on an axis or a label ('%.5g').
FLOAT_FORMAT = "%.5g"

Frame = dict[str, dict]
Values = Mapping[str, object]


def pprint(value: float) -> str:
    """A float as HoloViews prints it on a categorical axis or label."""
    return FLOAT_FORMAT % value
