"""A figure's layout, importable where it was (its home is ``posviz.figures.layout``)."""

from posviz.figures.layout import (  # noqa: F401
    WRAP_CSS,
    WrappingRow,
    deep_link,
    figure_layout,
    frame_size,
    numbers_html,
    plot_pane,
)
