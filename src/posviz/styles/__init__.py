"""The site's look: stylesheets for every view, light and dark, screen and print.

Panel renders each component in its own shadow root, so a rule reaches only
the elements of the component it is given to: text styles go to each text
pane, figure rules to the figure's own layouts, widget rules to each widget.
Colours meet WCAG AA (4.5:1 for text) in both schemes; ``DARK`` and ``LIGHT``
are the one place they are named. The rules themselves are the ``.css`` files
beside this module, loaded through ``posviz.assets``.
"""

from posviz import assets

LIGHT = {
    "ink": "#1d2433",
    "muted": "#4f586a",
    "accent": "#1b5797",
    "rule": "#d5dae3",
    "paper": "#ffffff",
    "chip": "#e8eef8",
    "focus": "#1b5797",
}
DARK = {
    "ink": "#e6e9ef",
    "muted": "#aab2c0",
    "accent": "#8cbcf5",
    "rule": "#3a4252",
    "paper": "#151a23",
    "chip": "#243047",
    "focus": "#8cbcf5",
}


def _variables(colours: dict) -> str:
    return " ".join(f"--pv-{name}: {value};" for name, value in colours.items())


def _sheet(name: str) -> str:
    return assets.source(__name__, f"{name}.css")


# Custom properties inherit into shadow roots, so every stylesheet below can use
# them; the media query switches them all at once.
VARIABLES = assets.render(__name__, "variables.css", LIGHT=_variables(LIGHT), DARK=_variables(DARK))

# Bokeh gives a row the sum of its children's widths as its min-width, and each
# enclosing column the largest of those, whether or not the row wraps: a page
# of wrapping rows would then still scroll sideways. A shadow root's !important
# beats the inline style Bokeh sets on its host.
NO_MIN_WIDTH = _sheet("no_min_width")

REDUCED_MOTION = _sheet("reduced_motion")

SITE_CSS = VARIABLES + NO_MIN_WIDTH + _sheet("site") + REDUCED_MOTION

# The page outside Panel's components: body colours, and what printing hides.
PAGE_CSS = VARIABLES + _sheet("page") + REDUCED_MOTION

TEXT_CSS = _sheet("text") + REDUCED_MOTION

NOTICE_CSS = _sheet("notice") + REDUCED_MOTION

FIGURE_CSS = NO_MIN_WIDTH + _sheet("figure") + REDUCED_MOTION

# The figure's own layouts: controls beside the plots when there is room, above
# them when not; controls are not printed.
FIGURE_BODY_CSS = NO_MIN_WIDTH + _sheet("figure_body") + REDUCED_MOTION

# A row whose items wrap (figures.layout.WrappingRow).
WRAP_CSS = _sheet("wrap")

# Widgets: visible focus, themed slider, and no transitions when motion is reduced.
WIDGET_CSS = _sheet("widget") + REDUCED_MOTION

# Bokeh plot colours per scheme; the page's script applies the dark set.
PLOT_THEMES = {
    "light": {"paper": "#ffffff", "ink": "#1d2433", "muted": "#4f586a", "grid": "#e3e6ec"},
    "dark": {"paper": "#151a23", "ink": "#e6e9ef", "muted": "#c0c7d3", "grid": "#2f3645"},
}
