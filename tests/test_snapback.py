"""What a browser may send a figure's widgets is what a reader can do with them.

Under `posviz serve` a browser's message reaches a widget in two steps: Bokeh
applies the patch to the widget's model (``Document.apply_json_patch``, which
validates each value), then Panel hands the change to the widget
(``_process_events``). Each test here takes one of those steps as the server
does, with one bad message, and asserts that (a) the figure keeps its value,
(b) the server logs exactly one line and no traceback, and (c) the widget
sends its own value back, so the browser shows it again.
"""

import logging
import math

import panel as pn
import pytest
from bokeh.core.serialization import Serialized
from bokeh.document import Document
from bokeh.models import RadioButtonGroup, Slider
from bokeh.models import Toggle as BokehToggle

from posviz.drawing import controls
from posviz.drawing.controls import SnapBack, snap_back
from posviz.figures import FIGURES, ClockHands, ParameterBudget

BROWSER = object()  # the setter Bokeh's server passes for a patch a browser sent
NUMBERS = "Show the numbers"


class Logged(logging.Handler):
    """Every record of the loggers it is attached to, formatted as the server prints it."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.records, self.lines = [], []

    def emit(self, record):
        self.records.append(record)
        self.lines.extend(self.format(record).splitlines())


@pytest.fixture
def logged():
    """What Panel, Bokeh, Param and posviz log (Panel's and Bokeh's loggers do not propagate)."""
    handler = Logged()
    loggers = [logging.getLogger(name) for name in ("", "panel", "bokeh", "param")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


class Drawn:
    """A figure's view in a Bokeh document, as a server session holds it."""

    def __init__(self, figure_class):
        self.figure = figure_class()
        self.doc = Document()
        layout = self.figure.__panel__()
        self.doc.add_root(layout.get_root(self.doc))
        self.widgets = {widget.name: widget for widget in layout.select(SnapBack)}
        self.sent = []  # (property, value) of each change the document sends the browser
        self.doc.on_change(self.record)

    def record(self, event):
        if getattr(event, "setter", None) is None and hasattr(event, "attr"):
            self.sent.append((event.attr, event.new))

    def model(self, label):
        [(model, _)] = self.widgets[label]._models.values()
        return model

    def state(self):
        """What must not move: the figure's values and every widget's value."""
        return self.figure.values(), {name: w.value for name, w in self.widgets.items()}

    def patch(self, label, prop, value):
        """Apply a browser's patch changing ``prop`` of ``label``'s model, as the server does."""
        event = {"kind": "ModelChanged", "model": self.model(label).ref, "attr": prop, "new": value}
        self.doc.apply_json_patch(Serialized({"events": [event]}, []), setter=BROWSER)


def one_line_without_traceback(logged):
    """(b): exactly one line, a warning from posviz's controls, with no traceback."""
    assert len(logged.records) == 1, logged.lines
    [record] = logged.records
    assert record.name == "posviz.drawing.controls" and record.levelno == logging.WARNING
    assert record.exc_info is None and len(logged.lines) == 1, logged.lines
    assert "Traceback" not in logged.lines[0]
    return logged.lines[0]


# (figure, widget label, Bokeh property, what a tampered browser sends)
SLIDER = [
    (ClockHands, "pos", "value", bad)
    for bad in ["abc", None, True, False, [1, 2], "30", 12.5, 30.5, math.nan, math.inf]
] + [
    (ClockHands, "pos", "value", {"type": "number", "value": "nan"}),  # NaN as Bokeh sends it
    (ClockHands, "pos", "value", 5000),
    (ClockHands, "pos", "value", -7),
    (ClockHands, "d_model", "value", 129),  # an odd width: the figure refuses it
    (ClockHands, "d_model", "value", 24),  # off the slider's step of 16: no widget sends it
    (ClockHands, "pos", "value_throttled", 12.5),
    (ClockHands, "pos", "value_throttled", "abc"),
    (ClockHands, "pos", "start", -50),
    (ClockHands, "pos", "end", 500),
    (ClockHands, "pos", "step", 0.5),
    (ClockHands, "pos", "disabled", True),
    (ClockHands, "pos", "visible", False),
    (ClockHands, "pos", "title", "hacked"),
    (ClockHands, "pos", "labels", ["a", "b"]),
]
BUTTONS = [
    (ParameterBudget, "Preset", "active", bad)
    for bad in [99, 3, -1, True, None, 1.5, "1", [1], "abc"]
] + [
    (ParameterBudget, "Preset", "labels", ["a", "b"]),
    (ParameterBudget, "Preset", "labels", ["base", "big", "custom", "huge"]),
    (ParameterBudget, "Preset", "button_type", "danger"),
    (ParameterBudget, "Preset", "orientation", "vertical"),
    (ParameterBudget, "Preset", "disabled", True),
]
TOGGLE = [(ClockHands, NUMBERS, "active", bad) for bad in [3, 1, "true", None, [True]]] + [
    (ClockHands, NUMBERS, "label", "hacked"),
    (ClockHands, NUMBERS, "button_type", "danger"),
]
BAD = SLIDER + BUTTONS + TOGGLE


def case_id(case) -> str:
    figure, label, prop, bad = case
    return f"{figure.figure_id}-{label.split()[0]}-{prop}={bad!r}"


# --- Bokeh's step: the patch is checked before Bokeh applies it ---------------------


@pytest.mark.parametrize("case", BAD, ids=case_id)
def test_a_bad_patch_from_the_browser_is_refused_and_the_widget_shown_again(case, logged):
    figure_class, label, prop, bad = case
    drawn = Drawn(figure_class)
    model = drawn.model(label)
    before = drawn.state()
    own = getattr(model, prop) if prop in model.properties() else None
    drawn.patch(label, prop, bad)  # unguarded, Bokeh raised, Panel read 12.5 as 12, or recursed
    assert drawn.state() == before  # (a)
    line = one_line_without_traceback(logged)  # (b)
    assert f"widget {label!r} refused" in line
    if prop in model.properties():  # (c): the browser is sent the model's own value
        assert drawn.sent == [(prop, own)]
        assert getattr(model, prop) == own


@pytest.mark.parametrize(
    "label, prop, good, moved",
    [
        ("pos", "value", 30, {"pos": 30}),
        ("pos", "value", 30.0, {"pos": 30}),  # JSON has one kind of number
        ("d_model", "value", 256, {"d_model": 256}),
    ],
)
def test_a_good_patch_still_moves_the_figure_with_nothing_logged(label, prop, good, moved, logged):
    drawn = Drawn(ClockHands)
    drawn.patch(label, prop, good)
    assert drawn.figure.values() == {**ClockHands().values(), **moved}
    assert logged.records == []


def test_a_button_and_the_numbers_toggle_still_answer(logged):
    budget, hands = Drawn(ParameterBudget), Drawn(ClockHands)
    budget.patch("Preset", "active", 1)
    hands.patch(NUMBERS, "active", True)
    assert budget.figure.preset == "big"
    assert hands.widgets[NUMBERS].value is True
    assert logged.records == []


# --- Panel's step: what Bokeh applied is checked where Panel hands it over ------------


@pytest.mark.parametrize("case", BAD, ids=case_id)
def test_the_widget_refuses_each_bad_change_panel_hands_it(case, logged):
    figure_class, label, prop, bad = case
    drawn = Drawn(figure_class)
    widget = drawn.widgets[label]
    before = drawn.state()
    triggered = []
    widget.param.watch(
        lambda *events: triggered.extend(e.name for e in events),
        list(widget.param),
        onlychanged=False,
    )
    widget._process_events({prop: bad})  # as Panel's server calls it
    assert drawn.state() == before  # (a)
    one_line_without_traceback(logged)  # (b)
    behind = {p: name for name, p in widget._property_mapping.items() if p}.get(prop, prop)
    if behind in widget.param:  # (c): the parameter behind the property is sent again
        assert behind in triggered, f"{behind} was not sent back"


# The Bokeh model behind each widget label above.
BOKEH_MODELS = {"pos": Slider, "d_model": Slider, "Preset": RadioButtonGroup, NUMBERS: BokehToggle}


def bokeh_applies(case) -> bool:
    """Whether Bokeh sets the bad value on the model and Panel hands it to the widget.

    Not for a value Bokeh refuses, nor ``visible`` (Panel does not listen to it),
    nor ``value_throttled`` (Panel never sends it back): the patch test covers those.
    """
    _, label, prop, bad = case
    kind = BOKEH_MODELS[label]
    return (
        prop in kind.properties()
        and prop not in ("visible", "value_throttled")
        and kind.lookup(prop).property.is_valid(bad)
    )


@pytest.mark.parametrize("case", [case for case in BAD if bokeh_applies(case)], ids=case_id)
def test_a_change_bokeh_let_through_is_undone_in_the_browsers_model(case, logged):
    """A value Bokeh takes is set on its model first: the widget must set its own back."""
    figure_class, label, prop, bad = case
    drawn = Drawn(figure_class)
    model = drawn.model(label)
    own, before = getattr(model, prop), drawn.state()
    setattr(model, prop, bad)  # Bokeh applied it; Panel's callback hands it to the widget
    assert drawn.state() == before
    one_line_without_traceback(logged)
    assert getattr(model, prop) == own, f"the browser's model keeps {prop}={bad!r}"


# --- every widget a figure shows is guarded, and the log stays one line ----------------


@pytest.mark.parametrize("figure_class", FIGURES.values(), ids=lambda cls: cls.__name__)
def test_every_widget_of_every_figure_has_a_reader_rule(figure_class):
    view = figure_class().__panel__()
    widgets = view.select(pn.widgets.Widget)
    assert widgets
    for widget in widgets:
        assert isinstance(widget, SnapBack), f"{widget.name!r} ({type(widget).__name__}) unguarded"
        kind = next(base for base in type(widget).__mro__ if base in controls.READERS)
        assert widget.readers is controls.READERS[kind]


def test_a_widget_kind_without_a_rule_is_refused_in_one_line():
    with pytest.raises(TypeError, match=r"no snap-back rule for Select widgets") as raised:
        snap_back(pn.widgets.Select)
    assert "\n" not in str(raised.value)


def test_a_huge_message_is_quoted_in_one_short_line(logged):
    drawn = Drawn(ParameterBudget)
    drawn.patch("Preset", "labels", ["x\ny" * 1000] * 10_000)
    line = one_line_without_traceback(logged)
    assert len(line) < 400, line
