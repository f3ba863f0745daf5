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

PLOT_BASIS = 300  # px a plot that names no width asks for (HoloViews draws it at 300)


def frame_size(plot) -> tuple[int, int] | None:
    """The (frame_width, frame_height) the plot asks for, if it asks for both."""
    options = plot_options(plot)
    width, height = options.get("frame_width"), options.get("frame_height")
    return (width, height) if width and height else None


def plot_options(plot) -> dict:
    """The Bokeh plot options the figure gave ``plot`` (a DynamicMap or an element)."""
    element = plot[()] if isinstance(plot, hv.DynamicMap) else plot
    return hv.Store.lookup_options("bokeh", element, "plot").kwargs


def asked_width(plot) -> int:
    """The width in px the figure drew ``plot`` for: its frame's, its own, or HoloViews'."""
    frame = frame_size(plot)
    return frame[0] if frame else plot_options(plot).get("width") or PLOT_BASIS


def has_legend(plot) -> bool:
    """Whether HoloViews draws a legend for ``plot``: an overlay with a labelled element."""
    element = plot[()] if isinstance(plot, hv.DynamicMap) else plot
    labelled = isinstance(element, hv.Overlay) and any(part.label for part in element)
    return labelled and plot_options(plot).get("show_legend", True)


def legend_css(asked: int) -> str:
    """A legend's rule: one column in a plot narrower than the width it was drawn for.

    Bokeh lays a legend out as a grid of ``legend_cols`` columns inside the frame and
    clips what passes the canvas; its columns fit the width the figure asked for. The
    plot pane is the container (``plot_pane``), and container queries reach into the
    legend's shadow root.
    """
    return (
        f"@container (max-width: {asked - 1}px) {{"
        " .bk-grid { grid-template-columns: max-content !important;"
        " grid-template-rows: none !important; grid-auto-flow: row !important; } }"
    )


def plot_pane(plot):
    """The plot in its pane, sized for any screen.

    A plot with a fixed frame (4121's grids of square cells) scales with the
    width and keeps its aspect, up to the size it was drawn for; the frame
    size becomes the canvas size, with room for the title. Line and bar plots
    stretch to the width and keep their height, so a phone still shows their
    curves and legends at a readable size. Plots share a row only when each gets
    the width it asks for (its flex basis): a title or a legend drawn for 460 px
    is not clipped at 300. Narrower than that (a phone), a legend takes one column.
    """
    frame, asked = frame_size(plot), asked_width(plot)
    if frame is None:
        mode, options, widest = "stretch_width", {}, max(asked, 640)
    else:
        width, height = frame
        mode, widest = "scale_width", width
        options = {
            "plot.frame_width": None,
            "plot.frame_height": None,
            "plot.width": width,
            "plot.height": height + 30,
        }
    if has_legend(plot):
        options["legend.stylesheets"] = [legend_css(asked)]
    return pn.pane.HoloViews(
        plot.opts(backend_opts={"plot.sizing_mode": mode, **options}, clone=True),
        linked_axes=False,
        sizing_mode=mode,  # the pane's mode becomes the plot's
        css_classes=["posviz-plot"],
        styles={
            "flex": f"1 1 {asked}px",
            "min-width": "0",
            "max-width": f"{widest}px",
            "container-type": "inline-size",  # the legend's rule measures the pane
        },
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
    widest = max(map(asked_width, plots))
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
        # Beside the controls only when the widest plot gets the width it asks for.
        styles={"flex": f"1 1 {widest}px", "min-width": "0"},
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
# px a figure's row has across at the narrow edge of the wide and mid bands (1000 and
# 700 px of viewport): the estimate is the layout at the band's narrowest.
BAND_ACROSS = (930, 630)
CONTROLS_ACROSS = 238  # the controls beside a plot, and the gap between them
PLOT_GAP_ACROSS = 8  # between two plots in a row (WRAP_CSS)
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
    readout's length. Wide (1000 px of viewport and more) and mid (700 to 999),
    laid out as at the band's narrowest (``BAND_ACROSS``): one plot sits beside the
    controls when it gets the width it asks for; plots sit below a row of controls,
    side by side as far as their asked widths fit. Narrow: everything stacks. The
    island keeps this room until the figure is drawn (site.css), so the text
    below it stays put; drawn, it is the figure's own height.
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
    asked = [spec_width(spec) for spec in specs]

    def drawn_at(across: int) -> float:
        """The height at ``across`` px of row: beside the controls, or below them in rows."""
        if len(specs) == 1:  # its controls are a column, beside it or above it
            if CONTROLS_ACROSS + asked[0] <= across:
                return max(sum(controls), heights[0] + text(beside))
            return sum(controls) + heights[0] + text(below)
        rows = packed(asked, across)
        tallest = [max(heights[n] for n in row) for row in rows]
        return max(controls) + sum(tallest) + PLOT_GAP * (len(rows) - 1) + text(below)

    wide, mid = drawn_at(BAND_ACROSS[0]), drawn_at(BAND_ACROSS[1])
    narrow = sum(controls) + sum(stacked) + PLOT_GAP * (len(heights) - 1) + text(narrow_chars)
    return int(UNDER * wide), int(UNDER * mid), int(UNDER * narrow)


def spec_width(spec) -> int:
    """The width a ``Plot`` asks for (``asked_width`` of its drawing)."""
    return spec.options.get("frame_width") or spec.options.get("width") or PLOT_BASIS


def packed(widths: list[int], across: int) -> list[list[int]]:
    """The plots' indices row by row, as a wrapping row of ``across`` px lays them out."""
    rows = [[]]
    for n, width in enumerate(widths):
        taken = sum(widths[m] + PLOT_GAP_ACROSS for m in rows[-1])
        if rows[-1] and taken + width > across:
            rows.append([])
        rows[-1].append(n)
    return rows


def idle_at_opening(figure) -> set[str]:
    """The sliders hidden at the figure's opening choices (``used_when``)."""
    from posviz.drawing.controls import idle

    return set(idle(type(figure)()))
