"""One figure's layout, the view behind ``Figure.__panel__``.

Controls, plots that fit their card, readout, a text alternative, a "Show the
numbers" table, the caption, and a deep link for print.

Controls sit beside the plots when there is room and above them when not;
each plot scales to its container and keeps its aspect.
"""

import holoviews as hv
import panel as pn
from markupsafe import Markup

from posviz import markup
from posviz.drawing import notebook_extension
from posviz.drawing import plots as drawn_plots
from posviz.drawing import specs as drawn_specs
from posviz.drawing.controls import show_used, snap_back, steady, widgets_for
from posviz.frames import texts
from posviz.styles import (
    CONTROLS_CSS,
    FIGURE_BODY_CSS,
    NO_MIN_WIDTH,
    REDUCED_MOTION,
    TEXT_CSS,
    WIDGET_CSS,
    WRAP_CSS,
)
from posviz.urls import figure_route, href

PLOT_BASIS = 300  # px a plot that names no width asks for (HoloViews draws it at 300)
CONTROLS_WIDTH = 230  # px of the controls' column beside one plot
WIDGET_WIDTH = 210  # px of each control
PHONE_PANE = 300  # px across a plot's pane on a phone, or less


def plot_area(plot) -> tuple[int, int] | None:
    """The plot area (Bokeh's frame_width and frame_height) ``plot`` asks for, if both."""
    options = plot_options(plot)
    width, height = options.get("frame_width"), options.get("frame_height")
    return (width, height) if width and height else None


def plot_options(plot) -> dict:
    """The Bokeh plot options the figure gave ``plot`` (a DynamicMap or an element)."""
    element = plot[()] if isinstance(plot, hv.DynamicMap) else plot
    return hv.Store.lookup_options("bokeh", element, "plot").kwargs


def asked_width(plot) -> int:
    """The width in px the figure drew ``plot`` for: its plot area's, its own, or HoloViews'."""
    area = plot_area(plot)
    return area[0] if area else plot_options(plot).get("width") or PLOT_BASIS


def has_legend(plot) -> bool:
    """Whether HoloViews draws a legend for ``plot``: an overlay with a labelled element."""
    element = plot[()] if isinstance(plot, hv.DynamicMap) else plot
    labelled = isinstance(element, hv.Overlay) and any(part.label for part in element)
    return labelled and plot_options(plot).get("show_legend", True)


def legend_css(asked: int) -> str:
    """The legends' rule: in a plot narrower than the width it was drawn for, the key.

    A legend inside the plot area is placed for the width the figure asked for. In a
    narrower plot its entries no longer fit beside the data it names: it would grow
    over it. There, it gives way to the plot's key (``narrow_key``), its entries under
    the x-axis, wrapped at the plot area's width, in room taken from the plot area; the key
    is hidden in a plot as wide as asked. A legend beside the plot area, in a side
    panel of its own, stays, in one column. The plot pane is the container
    (``plot_pane``), and container queries reach into a legend's shadow root. On a
    phone (a pane of ``PHONE_PANE`` px or less) the labels are a little smaller.
    """
    return (
        f":host(.{KEY_CLASS}) {{ display: none; }}"
        f"@container (max-width: {asked - 1}px) {{"
        f" :host(.{INSIDE_CLASS}) {{ display: none !important; }}"
        f" :host(.{KEY_CLASS}) {{ display: grid; }}"
        f" :host(.{KEY_CLASS}) .bk-grid {{ display: flex !important; flex-wrap: wrap;"
        " width: auto !important; column-gap: 12px; }"
        # A legend beside the plot area (its own side panel) stays, in one column.
        f" :host(:not(.{KEY_CLASS})) .bk-grid {{ grid-template-columns: max-content !important;"
        " grid-template-rows: none !important; grid-auto-flow: row !important; } }"
        f"@container (max-width: {PHONE_PANE}px) {{ .bk-label {{ font-size: 11px !important; }} }}"
    )


KEY_CLASS = "posviz-key"
INSIDE_CLASS = "posviz-inside"  # a legend inside the plot area that has a key


def narrow_key(plot, element) -> None:
    """A hook: a plot whose legend is inside its plot area gets a key under it.

    The key holds the same entries (the same models: a frame's new label is the key's
    too); ``legend_css`` shows it only where the legend would cover the data.
    """
    from bokeh.models import Legend

    state = plot.state
    inside = [legend for legend in state.center if isinstance(legend, Legend)]
    keyed = any(KEY_CLASS in model.css_classes for model in state.below)
    if inside and not keyed:
        legend = inside[0]
        legend.css_classes = [*legend.css_classes, INSIDE_CLASS]
        key = Legend(
            items=legend.items,
            css_classes=[KEY_CLASS],
            location="top_left",
            orientation="horizontal",
            margin=0,
            padding=4,
            spacing=4,
            border_line_color=None,
            background_fill_alpha=0,
            label_text_font_size=legend.label_text_font_size,
            glyph_width=legend.glyph_width,
            glyph_height=legend.glyph_height,
        )
        state.add_layout(key, "below")


def plot_pane(plot):
    """The plot in its pane, sized for any screen.

    A plot with a fixed plot area (4121's grids of square cells) scales with the
    width and keeps its aspect, up to the size it was drawn for; the area
    size becomes the canvas size, with room for the title. Line and bar plots
    stretch to the width and keep their height, so a phone still shows their
    curves and legends at a readable size. Plots share a row only when each gets
    the width it asks for (its flex basis): a title or a legend drawn for 460 px
    is not clipped at 300. Narrower than that, a legend inside the plot area gives
    way to its key under the plot (``legend_css``), so that it never covers the data.
    """
    area, asked = plot_area(plot), asked_width(plot)
    if area is None:
        mode, options = "stretch_width", {}
    else:
        width, height = area
        mode = "scale_width"
        options = {
            "plot.frame_width": None,
            "plot.frame_height": None,
            "plot.width": width,
            "plot.height": height + TITLE_ROOM,
        }
    hooks = {}
    # Bokeh lines up the plot areas of the plots in one row by their borders: a key shown
    # under one plot would lift the bottom of its neighbours' areas by its height, though
    # the row has wrapped them onto lines of their own. Each plot's bottom is its own.
    options["plot.frame_align"] = {"bottom": False}
    if has_legend(plot):
        options["legend.stylesheets"] = [legend_css(asked)]
        hooks = {"hooks": [*plot_options(plot).get("hooks", []), narrow_key]}
    return pn.pane.HoloViews(
        plot.opts(backend_opts={"plot.sizing_mode": mode, **options}, **hooks, clone=True),
        linked_axes=False,
        sizing_mode=mode,  # the pane's mode becomes the plot's
        css_classes=["posviz-plot"],
        styles={
            **{k: v for k, v in pane_styles(asked, area).items() if k != "aspect-ratio"},
            "container-type": "inline-size",  # the legend's rule measures the pane
        },
    )


TITLE_ROOM = 30  # px above a fixed plot area, for the plot's title


def pane_styles(asked: int, area: tuple[int, int] | None) -> dict:
    """A plot pane's flex rules, shared by the drawn figure and its room before the draw.

    It grows from the width it asks for; a stretching plot up to 640 px or that width,
    one with a fixed plot area up to that area, keeping its aspect (``aspect-ratio``, for the room:
    Bokeh's ``scale_width`` keeps it in the drawn figure).
    """
    if area is None:
        return {"flex": f"1 1 {asked}px", "min-width": "0", "max-width": f"{max(asked, 640)}px"}
    width, height = area
    return {
        "flex": f"1 1 {asked}px",
        "min-width": "0",
        "max-width": f"{width}px",
        "aspect-ratio": f"{width} / {height + TITLE_ROOM}",
    }


def main_styles(widest: int) -> dict:
    """The plots' column: beside the controls only when its widest plot gets its width."""
    return {"flex": f"1 1 {widest}px", "min-width": "0"}


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


LATER = "posviz-later"  # the class of a shell whose figure is drawn later (export/lazy.js)
FIGURE = "posviz-figure"  # the class of a figure's view once it holds its figure


def figure_shell(figure: object) -> pn.Column:
    """The outer column of a figure's view, empty: a page's root that ``figure_layout`` fills.

    The export's worker makes the page's far figures as shells and fills them once
    the near ones are live (``runtime.documents``); the page tells a shell by ``LATER``.
    """
    return pn.Column(
        css_classes=[LATER],
        name=f"figure-{figure.figure_id}",
        sizing_mode="stretch_width",
        stylesheets=[FIGURE_BODY_CSS, NO_MIN_WIDTH, REDUCED_MOTION],
    )


def figure_layout(
    figure: object, caption: bool = True, shell: pn.Column | None = None
) -> pn.Column:
    """The view of one figure (``Figure.__panel__``), in ``shell`` if given (``figure_shell``).

    A page has the caption as text and asks for the layout without it.
    """
    notebook_extension()
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
            stylesheets=[CONTROLS_CSS],
            **(
                {"width": CONTROLS_WIDTH, "sizing_mode": "fixed"}
                if beside
                else {"sizing_mode": "stretch_width", "styles": {"flex": "1 1 100%"}}
            ),
        ),
        figure,
    )
    for widget in controls.select(pn.widgets.Widget):
        widget.param.update(width=WIDGET_WIDTH, stylesheets=[*widget.stylesheets, WIDGET_CSS])
    show_used(controls, figure)  # sliders the current choice does not use are hidden
    watched = [figure.param[name] for name in figure.sliders()]
    readout = pn.pane.HTML(  # the numpy tier and the frames write this same HTML
        pn.bind(lambda *_: texts.markdown_html(figure.readout()), *watched),
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
        styles=main_styles(widest),
        stylesheets=[FIGURE_BODY_CSS],
    )
    body = [
        WrappingRow(
            controls,
            main,
            sizing_mode="stretch_width",
            stylesheets=[FIGURE_BODY_CSS],
        ),
        *(
            [
                pn.pane.HTML(  # the page's grammar (posviz.markup), as the page renders it
                    markup.render(figure.caption),
                    css_classes=["posviz-caption"],
                    stylesheets=[TEXT_CSS],
                    sizing_mode="stretch_width",
                    margin=(0, 10),
                )
            ]
            if caption
            else []
        ),
        link,
    ]
    # Panel's inner layouts (the controls' own column, each plot's row) animate their
    # scroll buttons; reduced motion reaches them only through their own stylesheets.
    # So does the fix to their min-widths (see NO_MIN_WIDTH). All are set before the
    # parts join the shell: on a live page, one change of the shell, not one per part.
    for part in (each for item in body for each in item.select(pn.layout.ListPanel)):
        if REDUCED_MOTION not in part.stylesheets:
            part.stylesheets = [*part.stylesheets, NO_MIN_WIDTH, REDUCED_MOTION]
    view = figure_shell(figure) if shell is None else shell
    view.param.update(objects=body, css_classes=[FIGURE])
    return view


# The room an island keeps before its figure is drawn: a box of the same flex rules
# as the figure's layout (``pane_styles``, the controls' widths, WRAP_CSS's gaps), with
# a box of the height Bokeh gives each widget and each plot, and the readout's own text,
# so the browser wraps and stacks it as it will the drawn figure, at any width
# (compose/static/site.css, .posviz-room; tests/ui/test_room.py).
# Heights in px Bokeh's stylesheets give its widgets (12 px text on 17.14 px lines),
# whatever the font: a slider with its title, and a button (a row of them, or one of
# a vertical group, whose buttons overlap by 1 px), under the group's title.
SLIDER_HEIGHT = 37.14
BUTTON_HEIGHT = 31.14
GROUP_TITLE_HEIGHT = 17.14  # a button group's title line (controls.group_title_css)


def island_room(figure, readout_html: str) -> Markup:
    """The island's room before its figure draws: the figure's layout as empty boxes.

    ``readout_html`` is the readout rendered as the page renders Markdown. Hidden
    (``visibility: hidden``, ``aria-hidden``) and dropped once the figure is drawn.
    """
    specs = drawn_specs(figure)[1]
    asked = [spec_width(spec) for spec in specs]
    beside = f' style="flex: 0 0 auto; width: {CONTROLS_WIDTH}px"' if len(specs) == 1 else ""
    widgets = "".join(
        f'<i style="width: {WIDGET_WIDTH}px; height: {h}px"></i>' for h in control_heights(figure)
    )
    plots = "".join(
        f'<i style="{inline(pane_styles(width, spec_plot_area(spec)) | spec_height(spec))}"></i>'
        for width, spec in zip(asked, specs, strict=True)
    )
    return Markup(
        '<div class="posviz-room" aria-hidden="true">'
        f'<div class="posviz-room-controls"{beside}><div>{widgets}</div></div>'
        f'<div class="posviz-room-main" style="{inline(main_styles(max(asked)))}">'
        f'<div class="posviz-room-plots">{plots}</div>'
        f'<div class="posviz-room-text">{readout_html}</div>'
        '<i class="posviz-room-toggle"></i></div></div>'
    )


def inline(styles: dict) -> str:
    """A ``style`` attribute's text from a dict of CSS properties."""
    return "; ".join(f"{name}: {value}" for name, value in styles.items())


def control_heights(figure) -> list[float]:
    """The height in px of each control shown at the figure's opening choices."""
    heights = []
    for name in figure.sliders():
        if name in figure.used_when and name in idle_at_opening(figure):
            continue  # hidden (show_used)
        widget = figure.widgets.get(name) or {}
        widget = {"type": widget} if isinstance(widget, str) else widget
        if not widget:
            heights.append(SLIDER_HEIGHT)
            continue
        count = len(figure.param[name].objects) if widget.get("orientation") == "vertical" else 1
        heights.append(round(GROUP_TITLE_HEIGHT + count * BUTTON_HEIGHT - (count - 1), 2))
    return heights


def spec_plot_area(spec) -> tuple[int, int] | None:
    """The plot area a ``Plot`` asks for, as ``plot_area`` of its drawing."""
    width, height = spec.options.get("frame_width"), spec.options.get("frame_height")
    return (width, height) if width and height else None


def spec_height(spec) -> dict:
    """The height of a ``Plot``'s box, its own or HoloViews' (fixed plot area keeps its aspect)."""
    if spec_plot_area(spec):
        return {}
    height = spec.options.get("height")
    if not height:
        first = next(iter(spec.elements.values()))
        height = hv.Store.registry["bokeh"][type(first)].height
    return {"height": f"{height}px"}


def spec_width(spec) -> int:
    """The width a ``Plot`` asks for (``asked_width`` of its drawing)."""
    return spec.options.get("frame_width") or spec.options.get("width") or PLOT_BASIS


def idle_at_opening(figure) -> set[str]:
    """The sliders hidden at the figure's opening choices (``used_when``)."""
    from posviz.drawing.controls import idle

    return set(idle(type(figure)()))
