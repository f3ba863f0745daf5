"""Widgets that never disagree with their figure.

In the page a reader can only drag a slider to a value its figure takes, but
anything can arrive over the server's websocket: NaN, infinity, a button
index that does not exist, a number the figure refuses. Panel then fails
inside the widget's callback, logs a traceback and leaves the browser showing
the refused value while the figure keeps its own. These widgets catch that
failure, log one line, and send the figure's value back to the browser.

A slider that changes nothing at the figure's current choice (4121's block
sizes under the local scheme) is hidden until a choice that uses it is
picked (``Figure.used_when``, ``show_used``). It keeps its value meanwhile,
so a deep link restores the whole state, and the Tab order is that of the
sliders shown, in declaration order.
"""

import logging
from functools import cache

import panel as pn

log = logging.getLogger(__name__)


class SnapBack:
    """Mixin for a Panel widget: a refused value from the browser is replaced by the figure's.

    The value is checked before Panel applies it (Panel would log a traceback
    for the failure); ``accepts`` is set by ``steady`` to the figure's check.
    """

    def accepts(self, value) -> None:
        """Raise ValueError if the figure refuses ``value``."""

    def _process_events(self, events):
        try:
            active = events.get("active")
            if isinstance(active, int) and active < 0:  # Python would read -1 as the last
                raise ValueError(f"there is no button {active}")
            converted = self._process_property_change(dict(events))
            if "value" in converted:
                self.accepts(converted["value"])
        except Exception as error:  # whatever the widget or its figure refuses
            why = (str(error).splitlines() or [""])[0][:200] or type(error).__name__
            log.warning(
                "widget %r refused %s from the browser (%s); showing %r again",
                self.name,
                {key: value for key, value in events.items()},
                why,
                self.value,
            )
            # The browser's model holds the refused value: send the widget's own again.
            self.param.trigger("value")
            return
        super()._process_events(events)


@cache
def snap_back(widget_type: type) -> type:
    """``widget_type`` with the SnapBack behaviour (one class per widget type)."""
    return type(widget_type.__name__, (SnapBack, widget_type), {"__module__": __name__})


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
    return chosen


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
        found[0].accepts = lambda value, name=name: figure.param[name]._validate(value)
    return controls


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
