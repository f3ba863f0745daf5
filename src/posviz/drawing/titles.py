"""Plot titles that fit their plot at any width, drawn the same by Python and the frames.

Bokeh draws a title on the canvas, on one line, from the frame's left edge: a title
written for a 460 px plot runs past the edge of a phone's 250 px plot, and a canvas
cannot wrap it. So each plot carries a small ``CustomJS`` (part of its document,
so the pre-rendered page, the frames tier and live Python all run it): whenever the
plot's width or its title's text changes, a title that would pass the canvas's right
edge starts at the canvas's left edge instead, over the y axis, and if it still does
not fit, its font shrinks until it does, never below ``SMALLEST_PX``.
"""

from bokeh.models import CustomJS

from posviz import assets

PAD = 4  # px kept between a moved title and the canvas's edges
SMALLEST_PX = 9  # the font size a title never shrinks below

# The callback's code: drawing/fit_title.js, called with the callback's args.
FIT_JS = assets.module_object("posviz.drawing", "fit_title.js") + (
    ".fitTitle(plot, title, base, pad, smallest);\n"
)

TAG = "posviz-fit-title"  # marks the callback, so a plot drawn again gets one, not two


def font_px(size: str) -> float:
    """A Bokeh font size (``"13px"``, ``"12pt"``) in px."""
    if size.endswith("pt"):
        return float(size[:-2]) * 4 / 3
    return float(size.removesuffix("px"))


def fit_title(plot) -> None:
    """Give a Bokeh plot the callback that fits its title to its width (once)."""
    title = plot.title
    if title is None or any(
        TAG in callback.tags for callback in title.js_property_callbacks.get("change:text", [])
    ):
        return
    fit = CustomJS(
        args={
            "plot": plot,
            "title": title,
            "base": font_px(title.text_font_size),
            "pad": PAD,
            "smallest": SMALLEST_PX,
        },
        code=FIT_JS,
        tags=[TAG],
    )
    plot.js_on_change("inner_width", fit)
    title.js_on_change("text", fit)
