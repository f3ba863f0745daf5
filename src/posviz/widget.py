"""A figure as an anywidget: live in Jupyter, JupyterLab, VS Code and marimo, with no server.

``Figure(710, pos=24)`` shows figure 710 at ``pos = 24`` in any front end
anywidget supports. The kernel runs the figure's model (``posviz.figures``,
numpy and param), so nothing runs in a server or comes from the network:

* each slider is a synced trait of the widget, read and set from Python
  (``w.pos``, ``w.pos = 30``) and from the page's own controls;
* a value is checked as a deep link's is (``deeplinks.check``: bounds, step,
  parity) and then by the figure (param's validation, bounds the other
  sliders move). From Python a refused value raises ValueError; from the
  page it snaps back, and ``refused`` says why in one line;
* the page draws the plots with BokehJS, sent once from the installed bokeh
  package (a private copy: a notebook's own BokehJS is left as it is), and
  the figure's drawing (``posviz.drawing``) as ``bokeh.embed.json_item``
  once. Each change then sends only the figure's ``frame()``, its arrays in
  one binary buffer (``frames.pool``), which ``widget.js`` applies to the
  drawn models as ``export/frames.js`` does in the static site.

For a site or a dashboard, the Panel view (``pn.panel(figure)``, or the figure
itself in a notebook) stays the one to use: it runs under ``posviz serve`` and
in the static export. This widget is for notebooks and front ends Panel does
not reach (VS Code, marimo) and for code that reads or sets sliders.
"""

# --- Imports -------------------------------------------------------------------------

import math

try:
    import anywidget
except ImportError:  # an optional extra: say which, in one line
    raise ImportError(
        "posviz.widget needs anywidget: pip install 'posviz[widget]' (or anywidget)"
    ) from None
import traitlets

from posviz import assets, deeplinks, markup
from posviz.frames import texts
from posviz.frames.pool import Pool

# --- General API ---------------------------------------------------------------------


class Slider(traitlets.Any):
    """One slider of the figure as a synced trait: a value the figure refuses never lands.

    Validation is the widget's (``Figure.refusal``): param's own check and the
    deep-link grammar's, one message for both.
    """

    def __init__(self, default):
        super().__init__(default)
        self.allow_none = False  # traitlets.Any lets None past validate: no slider takes it

    def validate(self, obj, value):
        """``value``, or ValueError saying in one line why the figure refuses it."""
        why = obj.refusal(self.name, value)
        if why:
            raise ValueError(why)
        return value


class Figure(anywidget.AnyWidget):
    """Figure ``figure_id`` as a widget, at ``values`` (slider name → value).

    Raises ValueError, in one line, for an unknown figure or slider and for a
    value the figure refuses (naming the slider and what it allows).
    """

    _esm = assets.render(
        "posviz",
        "widget.js",
        FRAME_APPLY=assets.module_object("posviz.export", "frame_apply.js"),
    )
    _css = assets.render("posviz", "widget.css")

    figure_id = traitlets.Int(read_only=True).tag(sync=True)
    refused = traitlets.Unicode("", help="Why the page's last value was refused, or ''.").tag(
        sync=True
    )
    # Sent once: BokehJS, and the drawn plots as bokeh.embed.json_item.
    _bokeh_js = traitlets.Unicode().tag(sync=True)
    _bokeh_version = traitlets.Unicode().tag(sync=True)
    _plots = traitlets.List().tag(sync=True)
    _caption = traitlets.Unicode().tag(sync=True)
    # Sent on each change: the controls, the frame and its arrays, the texts.
    _sliders = traitlets.List().tag(sync=True)
    _frame = traitlets.Dict().tag(sync=True)
    _columns = traitlets.List().tag(sync=True)
    _pool = traitlets.Bytes().tag(sync=True)
    _readout = traitlets.Unicode().tag(sync=True)
    _alt = traitlets.Unicode().tag(sync=True)

    def __init__(self, figure_id: int, **values):
        model = _model(figure_id, values)
        self.figure = model  # the figure's model: the widget shows it and follows it
        self.add_traits(
            **{name: Slider(value).tag(sync=True) for name, value in model.values().items()}
        )
        self.set_trait("figure_id", model.figure_id)  # read-only, and in the state the page opens
        super().__init__(
            **_state(model),
            **_drawing(model),
            **_bokehjs(),
        )
        self.observe(self._slider_moved, names=model.sliders())
        model.param.watch(self._model_moved, model.sliders(), precedence=200)

    @property
    def readout(self) -> str:
        """The figure's readout at the current values (Markdown: bold and line breaks)."""
        return self.figure.readout()

    def values(self) -> dict:
        """The sliders' values, by name."""
        return self.figure.values()

    def refusal(self, name: str, value) -> str:
        """Why slider ``name`` cannot take ``value`` now (one line), or ``""``."""
        return _refusal(self.figure, name, value)

    def set_state(self, sync_data):
        """A state from the page: a slider value the figure refuses is dropped and snaps back.

        ipywidgets hands every page update here; refusing a value in a trait's
        validation instead would end in a traceback in the kernel's log, and
        the page would keep the value it showed.
        """
        sliders = set(self.figure.sliders())
        kept, snapped, why = {}, [], []
        for name, value in sync_data.items():
            reason = self.refusal(name, value) if name in sliders else ""
            if reason:
                snapped.append(name)
                why.append(reason)
            else:
                kept[name] = value
        kept.pop("refused", None)  # the kernel's to say, never the page's
        super().set_state(kept)
        if snapped:
            self.refused = "; ".join(why)
            self.send_state([*snapped, "refused"])
        elif kept.keys() & sliders:
            self.refused = ""

    def _slider_moved(self, change) -> None:
        """A slider trait changed (from Python or the page): the model follows."""
        if getattr(self.figure, change["name"]) != change["new"]:
            setattr(self.figure, change["name"], change["new"])

    def _model_moved(self, *_events) -> None:
        """The model changed (through the widget or not): send its values and its frame."""
        with self.hold_sync():
            for name, value in self.figure.values().items():
                if getattr(self, name) != value:
                    self.set_trait(name, value)
            for name, value in _state(self.figure).items():
                self.set_trait(name, value)


def refused_why(figure, name: str, value, why: Exception | str) -> str:
    """The one line that says ``value`` for slider ``name`` of ``figure`` was refused, and why."""
    reason = str(why)
    if "parameter '" in reason.lower():  # param names the class; the widget names the figure
        reason = reason.split("' ", 1)[-1]
    return f"figure {figure.figure_id}: {name} = {value!r} refused: {reason}"


# --- Private API ---------------------------------------------------------------------


def _model(figure_id, values: dict):
    """The figure's model at ``values``, or ValueError in one line."""
    from posviz.figures import FIGURES

    if type(figure_id) is not int or figure_id not in FIGURES:
        known = ", ".join(str(i) for i in FIGURES)
        raise ValueError(f"there is no figure {figure_id!r}; the figures are {known}")
    model = FIGURES[figure_id]()
    unknown = [name for name in values if name not in model.sliders()]
    if unknown:
        raise ValueError(
            f"figure {figure_id} has no slider {unknown[0]!r}; its sliders are "
            + ", ".join(model.sliders())
        )
    for name in model.sliders():  # in declaration order, as a deep link sets them
        if name in values:
            why = _refusal(model, name, values[name])
            if why:
                raise ValueError(why)
            setattr(model, name, values[name])
    return model


def _refusal(figure, name: str, value) -> str:
    """Why ``figure``'s slider ``name`` cannot take ``value`` now, or ``""``.

    The value's kind first (JSON's true is not 1, 12.5 is not 12), then the
    deep-link grammar's bounds, step and parity, then the figure itself on a
    copy (a bound that another slider moves), so the model is never half set.
    """
    spec = next(s for s in deeplinks.figure_spec(figure)["sliders"] if s["name"] == name)
    kind = spec["type"]
    if kind == "integer" and (type(value) is not int):
        return refused_why(figure, name, value, f"must be a whole number {spec['span']}")
    if kind == "number" and (
        isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
    ):
        return refused_why(figure, name, value, f"must be a number {spec['span']}")
    if kind == "choice" and value not in [choice for _, choice in spec["choices"]]:
        texts_ = ", ".join(text for text, _ in spec["choices"])
        return refused_why(figure, name, value, f"must be one of {texts_}")
    try:
        deeplinks.check(value, spec)
        trial = type(figure)(**figure.values())
        setattr(trial, name, value)
    except ValueError as why:
        return refused_why(figure, name, value, why)
    return ""


def _state(figure) -> dict:
    """What the page shows at the figure's current values: controls, frame, texts."""
    pool = Pool()
    frame = pool.encode(figure.frame())
    return {
        "_sliders": _controls(figure),
        "_frame": frame,
        "_columns": pool.columns,
        "_pool": bytes(pool.blob),
        "_readout": texts.markdown_html(figure.readout()),
        "_alt": figure.describe(),
    }


def _controls(figure) -> list[dict]:
    """Each slider as the page draws it: label, kind, bounds and step now, shown or not."""
    from posviz.drawing.controls import idle

    hidden = idle(figure)
    controls = []
    for spec in deeplinks.figure_spec(figure)["sliders"]:
        name = spec["name"]
        parameter = figure.param[name]
        control = {"name": name, "label": parameter.label, "shown": name not in hidden}
        if spec["type"] == "choice":  # a button says a choice's label (1D block), if it has one
            words = {
                value: word for word, value in (getattr(parameter, "names", None) or {}).items()
            }
            options = [[words.get(value, text), value] for text, value in spec["choices"]]
            control.update(kind="buttons", options=options)
        elif spec["type"] in ("integer", "number"):
            low, high = parameter.bounds
            step = parameter.step if spec["type"] == "integer" else (high - low) / 100
            control.update(kind="range", start=low, end=high, step=step or 1)
        else:
            raise TypeError(f"posviz.widget: figure {figure.figure_id}'s {name} has no control")
        controls.append(control)
    return controls


def _drawing(figure) -> dict:
    """The figure's plots as ``json_item`` s, sized as the site's plot panes size them."""
    import holoviews as hv
    from bokeh.embed import json_item

    from posviz.drawing import drawn
    from posviz.drawing.layout import plot_pane

    frame = figure.frame()
    plots = []
    for spec in figure.draw(hv, frame):
        pane = plot_pane(drawn(figure, frame, spec))  # the site's sizing, applied to the plot
        item = json_item(hv.render(pane.object, backend="bokeh"))
        # The pane's flex rules: a plot shares a row only at the width it was drawn for
        # (else it wraps), and is the container its legend's one-column rule measures.
        plots.append({"key": spec.key, "item": item, "styles": dict(pane.styles)})
    caption = markup.render_inline(figure.caption)  # the pages' grammar
    return {"_plots": plots, "_caption": caption}


def _bokehjs() -> dict:
    """BokehJS of the installed bokeh, which drew the plots (about 1.3 MB, 0.35 MB gzipped)."""
    import bokeh
    from bokeh.resources import Resources

    [source, *_] = Resources(mode="inline", components=["bokeh"]).js_raw
    return {"_bokeh_js": source, "_bokeh_version": bokeh.__version__}
