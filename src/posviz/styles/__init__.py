"""The site's look: stylesheets for every view, light and dark, screen and print.

Panel renders each component in its own shadow root, so a rule reaches only
the elements of the component it is given to: text styles go to each text
pane, figure rules to the figure's own layouts, widget rules to each widget.
Colours meet WCAG AA (4.5:1 for text) in both schemes. They are named once, in
the page's stylesheet (``compose/static/site.css``), which must stand alone with
scripts off; ``LIGHT`` and ``DARK`` are read from it. The rules themselves are
the ``.css`` files beside this module, loaded through ``posviz.assets``.
"""

import re

from posviz import assets

PAGE_STYLESHEET = "compose/static/site.css"  # of the package posviz

_COLOUR = re.compile(r"--pv-([a-z]+):\s*(#[0-9a-f]{6})\s*;")
_DARK = "(prefers-color-scheme: dark)"  # the media query of the dark block


def palette(css: str, where: str = PAGE_STYLESHEET) -> tuple[dict, dict]:
    """The light and dark colours a stylesheet names: its ``:root`` block, then the dark one.

    Raises ``ValueError`` naming ``where`` when either block is missing or the two
    name different colours.
    """
    light, dark = css.partition(_DARK)[::2]
    light = dict(_COLOUR.findall(light.partition(":root")[2].partition("}")[0]))
    dark = dict(_COLOUR.findall(dark.partition("}")[0]))
    if not light or not dark or light.keys() != dark.keys():
        raise ValueError(
            f"{where}: wants a :root block of --pv-NAME: #rrggbb; colours and an @media"
            f" {_DARK} block naming the same ones"
            f" (light: {sorted(light)}, dark: {sorted(dark)})"
        )
    return light, dark


def block(css: str, name: str, where: str = PAGE_STYLESHEET) -> str:
    """The rules between ``/* posviz:NAME ... */`` and ``/* /posviz:NAME */`` in a stylesheet.

    Raises ``ValueError`` naming ``where`` when either marker is missing.
    """
    start, end = f"/* posviz:{name}", f"/* /posviz:{name} */"
    if start not in css or end not in css.partition(start)[2]:
        raise ValueError(f"{where}: wants a block from {start}: ... */ to {end}")
    return css.partition(start)[2].partition("*/")[2].partition(end)[0].lstrip("\n")


_PAGE = assets.source("posviz", PAGE_STYLESHEET)
LIGHT, DARK = palette(_PAGE)


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

# The page outside Panel's components: body colours, and what printing hides.
PAGE_CSS = VARIABLES + _sheet("page") + REDUCED_MOTION

# A text pane in its shadow root reads like the page's text: the rules they share
# are the page stylesheet's posviz:text block.
TEXT_CSS = block(_PAGE, "text") + _sheet("text") + REDUCED_MOTION

NOTICE_CSS = _sheet("notice") + REDUCED_MOTION

# The figure's own layouts: controls beside the plots when there is room, above
# them when not; controls are not printed.
FIGURE_BODY_CSS = NO_MIN_WIDTH + _sheet("figure_body") + REDUCED_MOTION

# The controls' column and row: they give way on a phone narrower than them.
CONTROLS_CSS = NO_MIN_WIDTH + _sheet("controls")

# A row whose items wrap (figures.layout.WrappingRow).
WRAP_CSS = _sheet("wrap")

# Widgets: visible focus, themed slider, and no transitions when motion is reduced.
WIDGET_CSS = _sheet("widget") + REDUCED_MOTION

# A button group's description, in a tooltip under it that wraps.
TOOLTIP_CSS = _sheet("tooltip")

# Bokeh plot colours per scheme, the page's paper and ink; the page's script applies
# the dark set. Dark axis labels are lighter than the text's muted colour.
PLOT_THEMES = {
    "light": {
        "paper": LIGHT["paper"],
        "ink": LIGHT["ink"],
        "muted": LIGHT["muted"],
        "grid": "#e3e6ec",
    },
    "dark": {"paper": DARK["paper"], "ink": DARK["ink"], "muted": "#c0c7d3", "grid": "#2f3645"},
}
