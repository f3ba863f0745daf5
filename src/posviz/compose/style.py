"""The stylesheets, importable where they were (their home is ``posviz.styles``)."""

from posviz.styles import (  # noqa: F401
    DARK,
    FIGURE_BODY_CSS,
    FIGURE_CSS,
    LIGHT,
    NO_MIN_WIDTH,
    NOTICE_CSS,
    PAGE_CSS,
    PLOT_THEMES,
    REDUCED_MOTION,
    SITE_CSS,
    TEXT_CSS,
    VARIABLES,
    WIDGET_CSS,
    WRAP_CSS,
)
