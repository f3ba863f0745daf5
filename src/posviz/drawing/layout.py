"""One figure's layout, the view behind ``Figure.__panel__``.

Controls, plots that fit their card, readout, a text alternative, a "Show the
numbers" table, the caption, and a deep link for print.

Controls sit beside the plots when there is room and above them when not;
each plot scales to its container and keeps its aspect.
"""

import holoviews as hv
import panel as pn

from posviz.drawing import plots as drawn_plots
from posviz.drawing.controls import show_used, snap_back, steady, widgets_for
from posviz.frames import texts
from posviz.styles import (
    FIGURE_BODY_CSS,
    NO_MIN_WIDTH,
    REDUCED_MOTION,
    TEXT_CSS,
    WIDGET_CSS,
    WRAP_CSS,
)
from posviz.urls import figure_route, href


def frame_size(plot) -> tuple[int, int] | None:
    """The (frame_width, frame_height) the plot asks for, if it asks for both."""
    element = plot[()] if isinstance(plot, hv.DynamicMap) else plot
    options = hv.Store.lookup_options("bokeh", element, "plot").kwargs
    width, height = options.get("frame_width"), options.get("frame_height")
    return (width, height) if width and height else None


def plot_pane(plot):
    """The plot in its pane, sized for any screen.

    A plot with a fixed frame (4121's grids of square cells) scales with the
    width and keeps its aspect, up to the size it was drawn for; the frame
    size becomes the canvas size, with room for the title. Line and bar plots
    stretch to the width and keep their height, so a phone still shows their
    curves and legends at a readable size.
    """
    frame = frame_size(plot)
    if frame is None:
        mode, options, widest = "stretch_width", {}, 640
    else:
        width, height = frame
        mode, widest = "scale_width", width
        options = {
            "plot.frame_width": None,
            "plot.frame_height": None,
            "plot.width": width,
            "plot.height": height + 30,
        }
    return pn.pane.HoloViews(
        plot.opts(backend_opts={"plot.sizing_mode": mode, **options}, clone=True),
        linked_axes=False,
        sizing_mode=mode,  # the pane's mode becomes the plot's
        css_classes=["posviz-plot"],
        styles={"flex": "1 1 280px", "min-width": "0", "max-width": f"{widest}px"},
    )


def numbers_html(figure: object) -> str:
    """The figure's current data as an accessible HTML table."""
    return texts.numbers_html(*figure.table())


def deep_link(figure: object) -> str:
    """The figure view's URL at the current values, shown in print (made absolute in the page)."""
    values = {name: getattr(figure, name) for name in figure.sliders()}
    return texts.deep_link_html(href(figure_route(figure.figure_id)), values)


class WrappingRow(pn.Row):
    """A row whose items wrap onto the next line when they do not fit.

    ``pn.FlexBox`` would do it, but it is a ReactiveHTML component whose
    markup Panel sanitizes with ``nh3``, which the static export does not ship.
    """

    def __init__(self, *objects, **params):
        params["stylesheets"] = [*params.get("stylesheets", []), WRAP_CSS]
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(*objects, **params)


def figure_layout(figure: object) -> pn.Column:
    """The view of one figure (``Figure.__panel__``)."""
    plots = drawn_plots(figure)
    # One plot: controls in a column beside it, wrapping above it when narrow.
    # Two plots: controls in a wrapping row above, so the plots get the width.
    beside = len(plots) == 1
    controls = steady(
        pn.Param(
            figure.param,
            parameters=figure.sliders(),
            widgets=widgets_for(figure),  # a value the figure refuses snaps back
            show_name=False,
            default_layout=WrappingRow,
            css_classes=["posviz-controls"],
            **(
                {"width": 230, "sizing_mode": "fixed"}
                if beside
                else {"sizing_mode": "stretch_width", "styles": {"flex": "1 1 100%"}}
            ),
        ),
        figure,
    )
    for widget in controls.select(pn.widgets.Widget):
        widget.param.update(width=210, stylesheets=[*widget.stylesheets, WIDGET_CSS])
    show_used(controls, figure)  # sliders the current choice does not use are hidden
    watched = [figure.param[name] for name in figure.sliders()]
    readout = pn.pane.Markdown(
        pn.bind(lambda *_: figure.readout(), *watched),
        css_classes=["posviz-readout"],
        stylesheets=[TEXT_CSS],
        sizing_mode="stretch_width",
        margin=(0, 10),
    )
    alternative = pn.pane.HTML(
        pn.bind(lambda *_: texts.alt_html(figure.describe()), *watched),
        css_classes=["posviz-alt"],
        stylesheets=[TEXT_CSS],
        margin=0,
    )
    show = snap_back(pn.widgets.Toggle)(  # what a browser sends it is checked too
        label="Show the numbers",
        value=False,
        width=170,
        css_classes=["posviz-numbers-toggle"],
        stylesheets=[WIDGET_CSS],
        margin=(4, 10),
    )
    numbers = pn.pane.HTML(
        pn.bind(lambda on, *_: numbers_html(figure) if on else "", show, *watched),
        visible=show,
        css_classes=["posviz-numbers"],
        stylesheets=[TEXT_CSS],
        sizing_mode="stretch_width",
        margin=(0, 10),
    )
    link = pn.pane.HTML(
        pn.bind(lambda *_: deep_link(figure), *watched),
        stylesheets=[TEXT_CSS],
        sizing_mode="stretch_width",
        margin=(0, 10),
    )
    plots = WrappingRow(
        *[plot_pane(plot) for plot in plots],
        sizing_mode="stretch_width",
        stylesheets=[FIGURE_BODY_CSS],
    )
    main = pn.Column(
        plots,
        alternative,
        readout,
        show,
        numbers,
        sizing_mode="stretch_width",
        styles={"flex": "1 1 300px", "min-width": "0"},
        stylesheets=[FIGURE_BODY_CSS],
    )
    view = pn.Column(
        WrappingRow(
            controls,
            main,
            sizing_mode="stretch_width",
            stylesheets=[FIGURE_BODY_CSS],
        ),
        pn.pane.Markdown(
            figure.caption,
            css_classes=["posviz-caption"],
            stylesheets=[TEXT_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        ),
        link,
        css_classes=["posviz-figure"],
        name=f"figure-{figure.figure_id}",
        sizing_mode="stretch_width",
        stylesheets=[FIGURE_BODY_CSS],
    )
    # Panel's inner layouts (the controls' own column, each plot's row) animate their
    # scroll buttons; reduced motion reaches them only through their own stylesheets.
    # So does the fix to their min-widths (see NO_MIN_WIDTH).
    for part in view.select(pn.layout.ListPanel):
        if REDUCED_MOTION not in part.stylesheets:
            part.stylesheets = [*part.stylesheets, NO_MIN_WIDTH, REDUCED_MOTION]
    return view


# What the island of a figure holds besides its plots, in px as the browser draws it
# (fitted once to the drawn figures at 1280 and 390 px; tests/ui/test_lazy.py and
# tests/ui/test_newcomer_export.py measure figures against the room this gives).
SLIDER_ROOM = 60  # a slider with its title and margins
BUTTONS_ROOM = 56  # a row of buttons
BUTTON_ROOM = 33  # one button of a vertical group
TEXT_ROOM = 80  # the "Show the numbers" toggle and the margins around the text
LINE_ROOM = 24  # a line of the readout
# Characters of the readout on a line: beside the controls, below them, on a phone.
LINE_CHARS = (100, 135, 44)
PLOT_GAP = 19  # between two plots stacked on a phone
PHONE_ACROSS = 330  # px a plot has across in a card on a phone (390 px of viewport)
# The room kept is a little less than the estimate: a short jump when the figure is
# drawn is better than a gap left under it.
UNDER = 0.97


def plot_height(spec, across: float | None = None) -> float:
    """The height a ``Plot`` is drawn at: its own, its frame's and a title's, or HoloViews'.

    A plot with a fixed frame keeps its shape (``plot_pane``), so in a card ``across`` px
    wide that is narrower than its frame it is drawn that much lower.
    """
    if spec.options.get("height"):
        return spec.options["height"]
    if spec.options.get("frame_height"):
        width, height = spec.options["frame_width"], spec.options["frame_height"] + 30
        return height * min(1.0, (across or width) / width)
    first = next(iter(spec.elements.values()))
    return hv.Store.registry["bokeh"][type(first)].height


def island_room(figure) -> tuple[int, int, int]:
    """The least height in px the figure's island takes drawn: (wide, mid, narrow).

    Derived from what the figure draws: its plots' heights, its controls and its
    readout's length. Wide (1000 px of viewport and more) and mid (700 to 999):
    one plot sits beside the controls; two or more sit below a row of them, all
    in one row when wide, two to a row when mid. Narrow: everything stacks. The
    island keeps this room until the figure is drawn (site.css), so the text
    below it stays put.
    """
    specs = figure.draw(hv, figure.frame())
    heights = [plot_height(spec) for spec in specs]
    stacked = [plot_height(spec, PHONE_ACROSS) for spec in specs]
    controls = []
    for name in figure.sliders():
        if name in figure.used_when and name in idle_at_opening(figure):
            continue
        widget = figure.widgets.get(name) or {}
        widget = {"type": widget} if isinstance(widget, str) else widget
        if widget.get("orientation") == "vertical":
            controls.append(BUTTON_ROOM * len(figure.param[name].objects))
        else:
            controls.append(BUTTONS_ROOM if widget else SLIDER_ROOM)
    paragraphs = figure.readout().replace("**", "").split("  \n")

    def text(chars: int) -> int:
        return TEXT_ROOM + LINE_ROOM * sum(-(-len(line) // chars) for line in paragraphs)

    beside, below, narrow_chars = LINE_CHARS
    if len(specs) == 1:  # beside its controls
        wide = mid = max(sum(controls), heights[0] + text(beside))
    else:  # below a row of controls
        wide = max(controls) + max(heights) + text(below)
        rows = [max(heights[n : n + 2]) for n in range(0, len(heights), 2)]
        mid = max(controls) + sum(rows) + PLOT_GAP * (len(rows) - 1) + text(below)
    narrow = sum(controls) + sum(stacked) + PLOT_GAP * (len(heights) - 1) + text(narrow_chars)
    return int(UNDER * wide), int(UNDER * mid), int(UNDER * narrow)


def idle_at_opening(figure) -> set[str]:
    """The sliders hidden at the figure's opening choices (``used_when``)."""
    from posviz.drawing.controls import idle

    return set(idle(type(figure)()))
