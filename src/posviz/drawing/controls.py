"""Widgets that never disagree with their figure.

In the page a reader can only drag a slider to a value its figure takes, or
press a button, but anything can arrive over the server's websocket: a new
``labels`` for a button group, a new ``end`` for a slider, ``"abc"``, ``null``,
``true``, NaN, 12.5 for a whole-number slider, a button that does not exist, a
number the figure refuses. Bokeh or Panel then fails with a traceback (or
recurses until ``RecursionError``), or quietly reads 12.5 as 12, and the
browser keeps showing what it sent while the figure keeps its own value.

So a widget here takes from the browser only what a reader can do with it
(``READERS``: a slider's value, a button group's or a toggle's ``active``), as
a value of exactly the kind that property holds, which its figure accepts.
Anything else is refused with one log line, and the browser is sent the
widget's own value again. The check runs twice: ``guard`` wraps the document's
``apply_json_patch``, where a browser's patch arrives before Bokeh validates
it (Bokeh's refusal is a traceback), and ``SnapBack._process_events`` checks
again where Panel applies the change, against the figure's bounds of then.

A slider that changes nothing at the figure's current choice (4121's block
sizes under the local scheme) is hidden until a choice that uses it is
picked (``Figure.used_when``, ``show_used``). It keeps its value meanwhile,
so a deep link restores the whole state, and the Tab order is that of the
sliders shown, in declaration order.
"""

import logging
import math
import reprlib
import weakref
from functools import cache

import panel as pn
from bokeh.core.serialization import Serialized
from bokeh.document.events import ModelChangedEvent
from bokeh.models import Tooltip

from posviz import deeplinks
from posviz.styles import TOOLTIP_CSS

log = logging.getLogger(__name__)


def _quoting() -> reprlib.Repr:
    """A ``repr`` that keeps what the log quotes of a message short, however long the message."""
    quote = reprlib.Repr()
    quote.maxstring = quote.maxother = 40
    quote.maxlist = quote.maxdict = 4
    quote.maxlevel = 2
    return quote


_QUOTE = _quoting()


def _number(sent) -> float | int:
    """``sent`` if it is a finite number (JSON's true is not 1, "3" is not 3)."""
    if isinstance(sent, bool) or not isinstance(sent, int | float) or not math.isfinite(sent):
        raise ValueError(f"{_QUOTE.repr(sent)} is not a number")
    return sent


def whole(widget, sent) -> int:
    """A whole-number slider's value: 12 (or 12.0), never 12.5 read as 12."""
    if not float(_number(sent)).is_integer():
        raise ValueError(f"{sent!r} is not a whole number")
    return int(sent)


def real(widget, sent) -> float:
    """A slider's value: any finite number."""
    return _number(sent)


def button(widget, sent):
    """A button group's choice, from the button's index: 0 to one less than the buttons."""
    values = list(widget.values)
    if isinstance(sent, bool) or not isinstance(sent, int) or not 0 <= sent < len(values):
        raise ValueError(f"there is no button {_QUOTE.repr(sent)}")
    return values[sent]


def on_off(widget, sent) -> bool:
    """A toggle's state: true or false."""
    if not isinstance(sent, bool):
        raise ValueError(f"{_QUOTE.repr(sent)} is not true or false")
    return sent


# Widget kind → {Bokeh property a reader changes: how the widget reads it}. Nothing
# else of a widget (labels, options, bounds, step, disabled, title, ...) is the reader's.
READERS = {
    pn.widgets.IntSlider: {"value": whole, "value_throttled": whole},
    pn.widgets.FloatSlider: {"value": real, "value_throttled": real},
    pn.widgets.RadioButtonGroup: {"active": button},
    pn.widgets.Toggle: {"active": on_off},
}


class SnapBack:
    """Mixin for a Panel widget: what the browser may not set is refused, and the widget's shown.

    ``accepts`` is set by ``steady`` to the figure's check; a widget outside
    the controls (the numbers toggle) checks with its own parameter only.
    """

    readers: dict = {}  # this widget kind's entry of READERS (set by snap_back)

    def accepts(self, value) -> None:
        """Raise ValueError if the figure refuses ``value``."""

    def reading(self, prop: str, sent, model=None):
        """The value the widget reads from ``sent`` for ``prop``; ValueError if it must refuse it.

        ``model`` (the widget's Bokeh model) adds Bokeh's own check of the
        property, for a value Bokeh has not validated yet.
        """
        if prop not in self.readers:
            raise ValueError(f"a reader cannot change {prop!r}")
        read = self.readers[prop](self, sent)
        if model is not None and not model.lookup(prop).property.is_valid(sent):
            raise ValueError(f"{type(model).__name__}.{prop} cannot be {_QUOTE.repr(sent)}")
        self.param["value"]._validate(read)
        return read

    def refuse(self, events: dict, error: Exception) -> None:
        """Log one line saying what the browser sent and why it was refused."""
        why = (str(error).splitlines() or [""])[0][:200] or type(error).__name__
        log.warning(
            "widget %r refused %s from the browser (%s); showing %s again",
            self.name,
            _QUOTE.repr(dict(events)),
            why,
            _QUOTE.repr(self.value),
        )

    def behind(self, prop: str) -> list[str]:
        """The widget's parameters that set its model's ``prop`` (none: Bokeh's own property)."""
        names = [name for name, mapped in self._property_mapping.items() if mapped == prop]
        return [name for name in names or [prop] if name in self.param]

    @property
    def _linked_properties(self) -> tuple[str, ...]:
        # Panel listens once per parameter behind a property (two for ``button_type``),
        # so one change from the browser would be refused, and logged, twice.
        return tuple(dict.fromkeys(super()._linked_properties))

    def _process_events(self, events):
        try:
            for prop, sent in events.items():
                self.accepts(self.reading(prop, sent))
        except Exception as error:  # whatever the widget or its figure refuses
            self.refuse(events, error)
            # The browser's model holds what it sent: send the widget's own again.
            self.param.trigger(*sorted({name for prop in events for name in self.behind(prop)}))
            return
        super()._process_events(events)

    def _get_model(self, doc, root=None, parent=None, comm=None):
        model = super()._get_model(doc, root, parent, comm)
        guard(doc)[model.id] = self
        return model


def guard(doc) -> weakref.WeakValueDictionary:
    """The SnapBack widgets of ``doc`` by model id, whose changes from a browser ``doc`` checks.

    Bokeh applies a browser's patch with ``doc.apply_json_patch(patch,
    setter=<the session>)`` and validates each value as it sets it: a value of
    the wrong type fails there, with a traceback, before Panel sees it. The
    wrapper drops each change to a guarded widget that the widget refuses,
    applies the rest, and sends the browser the model's own value back.
    """
    if hasattr(doc.apply_json_patch, "posviz_widgets"):
        return doc.apply_json_patch.posviz_widgets
    widgets = weakref.WeakValueDictionary()
    held = weakref.ref(doc)  # the document owns the wrapper: no cycle through it

    def apply_json_patch(patch_json, *, setter=None):
        document, refused = held(), []
        if setter is not None:  # a browser's patch, not Python's own change
            patch_json, refused = _sift(document, widgets, patch_json)
        type(document).apply_json_patch(document, patch_json, setter=setter)
        for model, prop in refused:
            own = model.lookup(prop).get_value(model)
            document.callbacks.trigger_on_change(ModelChangedEvent(document, model, prop, own))

    apply_json_patch.posviz_widgets = widgets
    doc.apply_json_patch = apply_json_patch
    return widgets


def _sift(doc, widgets, patch_json) -> tuple:
    """(``patch_json`` without the changes its widgets refuse, [(model, property) refused])."""
    content = patch_json.content if isinstance(patch_json, Serialized) else patch_json
    kept, refused = [], []
    for event in content.get("events", []):
        model, widget = _target(doc, widgets, event)
        try:
            if widget is not None:
                widget.reading(event["attr"], event.get("new"), model)
        except Exception as error:  # whatever the widget refuses
            widget.refuse({event["attr"]: event.get("new")}, error)
            if event["attr"] in model.properties():
                refused.append((model, event["attr"]))
        else:
            kept.append(event)
    if len(kept) == len(content.get("events", [])):
        return patch_json, refused
    content = {**content, "events": kept}
    if isinstance(patch_json, Serialized):
        return Serialized(content, patch_json.buffers), refused
    return content, refused


def _target(doc, widgets, event) -> tuple:
    """(Bokeh model, SnapBack widget) a patch event changes, or (None, None) if unguarded."""
    if not isinstance(event, dict) or event.get("kind") != "ModelChanged":
        return None, None
    reference = event.get("model")
    widget = widgets.get(reference.get("id")) if isinstance(reference, dict) else None
    model = doc.get_model_by_id(reference["id"]) if widget is not None else None
    if model is None or not isinstance(event.get("attr"), str):
        return None, None
    return model, widget


class TipBelow:
    """Mixin for a Panel widget whose description is a hover tooltip (a button group).

    The tooltip opens under the widget, centred, and wraps (``styles/tooltip.css``):
    Panel shows it on one line to the group's right, where at a docs column's width
    or a phone's it ran off the page.
    """

    def _process_param_change(self, params):
        description = params.get("description")
        if isinstance(description, str):
            tip = Tooltip(
                content=description,
                position="bottom_center",
                attachment="below",
                stylesheets=[TOOLTIP_CSS],
            )
            params = {**params, "description": tip}
        return super()._process_param_change(params)


@cache
def snap_back(widget_type: type) -> type:
    """``widget_type`` with the SnapBack behaviour (one class per widget type).

    Only a kind ``READERS`` names: for any other, what a reader may send is unknown.
    """
    if widget_type not in READERS:
        raise TypeError(
            f"posviz.drawing.controls: no snap-back rule for {widget_type.__name__} widgets; "
            f"name what a reader changes with one in READERS (known: "
            f"{', '.join(sorted(kind.__name__ for kind in READERS))})"
        )
    members = {"__module__": __name__, "readers": READERS[widget_type]}
    tipped = "description_delay" in widget_type.param  # Panel's TooltipMixin
    bases = (SnapBack, TipBelow, widget_type) if tipped else (SnapBack, widget_type)
    return type(widget_type.__name__, bases, members)


# The widgets a figure may name in its ``widgets`` (model.Figure), beside the default.
NAMED_WIDGETS = {"buttons": pn.widgets.RadioButtonGroup}


def widgets_for(figure) -> dict:
    """The ``widgets`` argument of ``pn.Param`` for ``figure``: every slider snaps back.

    A figure names a widget in words (``"buttons"``, or a dict whose ``type`` is
    one, with the widget's options), so that its model needs no Panel.
    """
    chosen = {}
    for name in figure.sliders():
        spec = figure.widgets.get(name) or {}
        if isinstance(spec, str):
            spec = {"type": spec}
        kind = spec.get("type")
        if kind is not None and kind not in NAMED_WIDGETS:
            raise ValueError(
                f"{type(figure).__name__}.widgets[{name!r}]: no widget named {kind!r}; "
                f"one of {sorted(NAMED_WIDGETS)}"
            )
        base = NAMED_WIDGETS[kind] if kind else pn.Param.widget_type(figure.param[name])
        chosen[name] = {**spec, "type": snap_back(base)}
        if kind == "buttons":
            chosen[name]["stylesheets"] = [group_title_css(figure.param[name].label or name)]
    return chosen


def group_title_css(title: str) -> str:
    """A button group's title, above its buttons as a slider's is above its bar.

    Panel's button groups show no title (``_RadioGroupBase`` drops the label), so a
    reader saw "512 1K 2K 4K" with nothing saying what they set. The page script
    names the group after it for screen readers (``role="group"``, ``aria-label``).
    """
    return (
        ".bk-btn-group { flex-wrap: wrap; }"
        f" .bk-btn-group::before {{ content: {css_string(title)}; width: 100%; flex: 0 0 auto;"
        " white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }"
    )


def css_string(text: str) -> str:
    r"""``text`` as a CSS string: quotes and backslashes escaped, line breaks as ``\A``.

    Not JSON: CSS reads ``\u03b8`` as "u03b8", so a label "base θ" must stay as it is.
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\A ")
    return f'"{escaped}"'


def steady(controls: pn.Param, figure) -> pn.Param:
    """``controls`` (built with ``widgets_for(figure)``), each widget checking with ``figure``."""
    # pn.Param names each widget by its parameter's label (its name map is private).
    by_label: dict = {}
    for widget in controls.select(SnapBack):
        by_label.setdefault(widget.name, []).append(widget)
    for name in figure.sliders():
        found = by_label.get(figure.param[name].label, [])
        if len(found) != 1:
            raise TypeError(
                f"{type(figure).__name__}.{name}: expected one widgets_for widget labelled "
                f"{figure.param[name].label!r}, found {len(found)}"
            )
        found[0].accepts = lambda value, name=name: accepts(figure, name, value)
    return controls


def accepts(figure, name: str, value) -> None:
    """ValueError unless ``figure`` takes ``value`` for slider ``name`` and a widget reaches it.

    param's check first, then the deep-link grammar's (step, parity), as the numpy tier has it.
    """
    figure.param[name]._validate(value)
    spec = next(s for s in deeplinks.figure_spec(figure)["sliders"] if s["name"] == name)
    try:
        deeplinks.check(value, spec)
    except ValueError as why:
        raise ValueError(f"{name} = {value!r}: {why}") from None


def idle(figure) -> dict[str, str]:
    """Sliders that change nothing at ``figure``'s current choices → the words naming who uses them.

    From ``figure.used_when``: a slider is idle while its choice parameter
    holds none of the choices that use it. The word is that choice's label
    (a Selector's named object), for a reader: ``1D block``.
    """
    quiet = {}
    for name, (choice, users) in figure.used_when.items():
        if getattr(figure, choice) not in users:
            names = getattr(figure.param[choice], "names", None) or {}
            words = {value: word for word, value in names.items()}
            quiet[name] = " or ".join(words.get(user, str(user)) for user in users)
    return quiet


def show_used(controls: pn.Param, figure) -> pn.Param:
    """Show only the widgets of ``controls`` that ``figure``'s current choices use."""
    if not figure.used_when:
        return controls
    by_label = {widget.name: widget for widget in controls.select(SnapBack)}
    widgets = {name: by_label[figure.param[name].label] for name in figure.used_when}

    def update(*_):
        quiet = idle(figure)
        for name, widget in widgets.items():
            widget.visible = name not in quiet

    choices = sorted({choice for choice, _ in figure.used_when.values()})
    figure.param.watch(update, choices)
    update()
    return controls
