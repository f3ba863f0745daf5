"""A figure's drawing, derived from its model: the one place HoloViews is used.

``plots(figure)`` asks the figure's ``draw(hv, frame)`` for its plots (each a
``Plot``: a key, elements by key, plot options) and makes each a HoloViews
object that:

* names every Bokeh model ``posviz-<figure id>-<key>``: a plot by its plot
  key, an element's data source (or, for a ``VLine``, its line) by its
  element key, a legend entry ``<element key>:label``;
* draws without a toolbar or default tools, on a 2D canvas (``QUIET``);
* sets, once drawn, every property the frame names, so that what HoloViews
  would pad, format or flip is the frame's to say, never copied from it.

The figure is drawn once; each slider step applies the new frame to the drawn
models in place (``apply_frame``), as ``export/frames.js`` does in the static
page before Python is up.
"""

import sys
import weakref
from contextlib import ExitStack, contextmanager

import holoviews as hv
import holoviews.util
import numpy as np
import param

from posviz.drawing.titles import fit_title

# The figures' options are Bokeh options, so the Bokeh backend is loaded (and
# made current, as in any notebook that uses it). No default is set: what
# follows is passed to posviz's own elements only, so importing posviz leaves
# a notebook's HoloViews defaults as they were. HoloViews' plain extension, not
# the notebook's (``hv.extension`` in a kernel): that one would publish its page
# scripts, from a CDN, in every kernel that imports posviz, posviz.widget's too,
# which needs none of them. A figure's Panel view asks for them itself
# (``notebook_extension``).
holoviews.util.extension("bokeh")

# Figures hand HoloViews numpy arrays and tuples only: these interfaces hold them.
DATATYPES = ["dictionary", "grid", "array"]
IMAGE_DATATYPES = ["grid", "image", "dictionary"]

# Explanatory figures are moved with sliders, not panned or zoomed: no toolbar,
# and no default tools (fewer Bokeh models to build and ship on every page).
# A figure that wants hover asks for it with tools=["hover"]. Passed in each
# element's own .opts call: as cheap as the HoloViews default it replaces,
# where option objects applied per update cost time on every plot
# (benchmarks/notes.md, "Numbers behind the code").
QUIET = {"default_tools": [], "toolbar": None}


def notebook_extension() -> None:
    """In a Jupyter kernel, load HoloViews' and Panel's page scripts once: a Panel view needs them.

    Called when a figure is first shown as a Panel view; outside a kernel, and
    once loaded, it does nothing.
    """
    if hv.extension._loaded or "ipykernel" not in sys.modules:
        return
    from IPython import get_ipython

    if getattr(get_ipython(), "kernel", None) is not None:
        hv.extension("bokeh", logo=False)


def numpy_only() -> None:
    """Make HoloViews consider only the data interfaces numpy data needs, process-wide.

    Otherwise HoloViews probes every interface, pandas first, whenever it wraps
    data (while rendering too, so it cannot be set per element), and the probe
    imports pandas: in the browser that is seconds of download and import for
    nothing. It changes HoloViews globals, so only a process that is all posviz
    calls it: the static export's start-up (``compose.views.servable``).
    """
    hv.core.data.Dataset.datatype = DATATYPES
    hv.Image.datatype = IMAGE_DATATYPES


def model_name(figure, key: str) -> str:
    """The name of the Bokeh model a frame calls ``key``."""
    return f"posviz-{figure.figure_id}-{key}"


def specs(figure) -> tuple[dict, list]:
    """``(frame, plots)``: the figure's frame and its ``draw`` at its current values.

    Kept on the figure until a value changes: a served page asks for the same drawing
    three times (its plots, its legend's labels as text, the room its island keeps),
    and each ``draw`` builds every HoloViews element again.
    """
    key = tuple((name, repr(value)) for name, value in figure.param.values().items())
    kept = figure.__dict__.get("_posviz_specs")
    if kept is None or kept[0] != key:
        frame = figure.frame()
        kept = figure.__dict__["_posviz_specs"] = (key, frame, figure.draw(hv, frame))
    return kept[1], kept[2]


def watched_plot(figure) -> str:
    """The plot a step of the figure's ``stepped_slider`` redraws: what the benchmarks watch."""
    return figure.watched_plot or specs(figure)[1][0].key


def stepped_slider(figure) -> str:
    """The slider the benchmarks step: the figure's own choice, else its first number slider."""
    numbers = [
        name
        for name in figure.sliders()
        if name not in figure.implied and isinstance(figure.param[name], param.Integer)
    ]
    return figure.stepped_slider or numbers[0]


def apply_frame(models: dict, frame: dict, prefix: str) -> None:
    """Set the properties ``frame`` names on the Bokeh ``models`` (name → model) it names.

    Keys whose model is not among ``models`` belong to another drawn plot.
    Only columns and properties that changed are set, so a step sends just those.
    """
    from bokeh.core.property.vectorization import Value

    for key, changes in frame.items():
        model = models.get(f"{prefix}{key}")
        if model is None:
            continue
        for path, new in changes.items():
            if path == "data":
                moved = {
                    column: values
                    for column, values in new.items()
                    if not _same(model.data.get(column), values)
                }
                if moved:
                    model.data.update(moved)
                continue
            *parents, name = path.split(".")
            owner = model
            for parent in parents:
                owner = getattr(owner, parent)
            old = getattr(owner, name)
            if isinstance(old, Value):  # a legend label: a value, not a column name
                new = Value(new)
            if old != new:
                setattr(owner, name, new)


def _same(old, new) -> bool:
    """Whether a drawn column already holds ``new``."""
    if old is None or len(old) != len(new):
        return False
    if len(new) and isinstance(new[0], np.ndarray):  # an image column: a list of arrays
        return all(np.array_equal(a, b) for a, b in zip(old, new, strict=True))
    return np.array_equal(np.asarray(old), np.asarray(new))


def named_models(plot) -> dict:
    """The posviz-named Bokeh models of a drawn HoloViews plot, by name (found once)."""
    models = getattr(plot, "_posviz_models", None)
    if models is None:
        models = {
            model.name: model
            for model in plot.state.references()
            if (model.name or "").startswith("posviz-")
        }
        plot._posviz_models = models
    return models


# --- Drawing ---------------------------------------------------------------------


def _name_element(name: str):
    """A hook naming an element's data source (or, for a VLine, its line) ``name``."""

    def hook(plot, element):
        # A glyph draws its data source; an annotation (a Span) is its own model.
        if "glyph_renderer" in plot.handles:
            plot.handles["source"].name = name
            # HoloViews names it by the element's label, which a later frame may change.
            plot.handles["glyph_renderer"].name = f"{name}:renderer"
        else:
            plot.handles["glyph"].name = name

    return hook


def _name_plot(figure, key: str, frame: dict):
    """A hook for a whole plot: name it, draw it on canvas, set what the frame says.

    It names the plot and its legend entries, and remembers the plot, weakly,
    for the figure's steps.

    HoloViews asks for WebGL by default; BokehJS then copies the WebGL canvas
    into the page's 2D canvas on every repaint, a slider step's whole budget in
    Chromium without a GPU (benchmarks/notes.md, "Numbers behind the code").
    """
    name, prefix = model_name(figure, key), model_name(figure, "")

    def hook(plot, element):
        plot.state.name = name
        plot.state.output_backend = "canvas"
        fit_title(plot.state)  # a title longer than a narrow plot moves left, then shrinks
        for legend in plot.state.legend:
            for item in legend.items:
                sources = [getattr(r, "data_source", None) for r in item.renderers]
                if sources and (sources[0].name or "").startswith(prefix):
                    item.name = f"{sources[0].name}:label"
        plot._posviz_models = None  # named anew: look again
        apply_frame(named_models(plot), frame, prefix)
        for axis in ("x_range", "y_range"):
            if f"{axis}.start" in frame.get(key, {}):  # the frame's to say, at every step
                getattr(plot.state, axis).update(reset_start=None, reset_end=None)
        figure.__dict__.setdefault("_posviz_drawn", weakref.WeakSet()).add(plot)

    return hook


def drawn(figure, frame: dict, spec) -> hv.DynamicMap:
    """One ``Plot`` of the figure as a HoloViews object, drawn once at ``frame``."""
    plot_hook = _name_plot(figure, spec.key, frame)
    options = dict(spec.options)
    if "title.text" in frame.get(spec.key, {}):  # the rest of the frame is set once drawn
        options["title"] = frame[spec.key]["title.text"]
    named = [
        (_name_element(model_name(figure, key)), element) for key, element in spec.elements.items()
    ]
    if len(named) == 1:  # a lone element is its own plot
        [(hook, element)] = named
        whole = element.opts(hooks=[hook, plot_hook], **QUIET, **options)
    else:
        elements = [element.opts(hooks=[hook], **QUIET) for hook, element in named]
        whole = hv.Overlay(elements).opts(toolbar=None, **options, hooks=[plot_hook])
    return hv.DynamicMap(lambda: whole)


def plots(figure) -> list:
    """The figure's live plots, left to right; each later slider step is applied in place."""
    if not figure.__dict__.get("_posviz_stepping"):
        figure.__dict__["_posviz_stepping"] = True
        # After the figure's own watchers (a preset moving sizes, a side moving the query).
        figure.param.watch(lambda *_: step(figure), figure.sliders(), precedence=100)
    frame, drawing = specs(figure)
    return [drawn(figure, frame, spec) for spec in drawing]


def live(figure) -> list:
    """The live HoloViews plots of ``figure``, as drawn by ``plots``."""
    return list(figure.__dict__.get("_posviz_drawn", ()))


def step(figure) -> None:
    """Apply the current frame to every drawn plot, in place."""
    drawn_plots = live(figure)
    if not drawn_plots:
        return
    frame, prefix = figure.frame(), model_name(figure, "")
    with sending(drawn_plots):
        for plot in drawn_plots:
            apply_frame(named_models(plot), frame, prefix)


@contextmanager
def sending(drawn_plots: list):
    """Hold each Document the plots are drawn in while they are updated in place.

    The changes then go out as after HoloViews' own refresh: Panel's ``hold``
    releases them to the session under a server (also from another thread) and
    to the page in the export, and the plot's ``push`` sends them over the comm
    in a notebook.
    """
    import panel as pn

    documents = {}
    for plot in drawn_plots:
        if plot.document is not None:
            documents.setdefault(id(plot.document), plot)
    with ExitStack() as stack:
        for plot in documents.values():
            stack.enter_context(pn.io.hold(plot.document, comm=plot.comm))
        yield
    for plot in documents.values():
        plot.push()
