"""A figure is its model: sliders, a frame and texts, in numpy and param only.

A figure is one class in one module of ``posviz.figures`` (found there, no list):

* its **parameters** are the sliders: ``Slider``, ``EvenSlider``, or a
  ``param.Selector`` with named choices;
* ``frame()`` says what the current values put on screen: element key → the
  properties the sliders change (``Frame`` below);
* ``readout()`` says it in words; ``describe()`` and ``table()`` say it for a
  screen reader and for "Show the numbers" (defaults below);
* ``draw(hv, frame)`` says which elements it has, keyed like its frame, as
  ``Plot`` s. ``posviz.drawing`` draws them with the HoloViews module it hands
  in, names the Bokeh models, sets every property the frame names, and applies
  each later frame in place.

The same class runs everywhere: the static site's numpy tier imports it with
numpy and param only (``runtime/compute.py``), the build computes its frames,
and ``posviz serve`` and notebooks draw it.
"""

import itertools
import math
from collections.abc import Mapping
from functools import cache
from typing import ClassVar

import param

from posviz.deeplinks import state_key

# What a frame holds, per element key (posviz.drawing sets it on the Bokeh models):
#   a data source:  {"data": {column: values}} (only the columns that move)
#   a line (VLine): {"location": x}
#   a plot:         {"title.text": ..., "x_range.start": ..., "y_range.end": ...}
#   a legend entry: key "<element key>:label", {"label": text}
Frame = dict[str, dict]
Values = Mapping[str, object]

# A caption says what to do and what to notice: a short label is not enough.
CAPTION_MIN_CHARS = 80

PALETTE = ("#1f5fa8", "#e07b1a", "#2a9d5c", "#b8336a", "#6b4fa0", "#7a7a7a")
INK = "#1d2433"


class FullBounds:
    """Mixin for a ``param.Number``: say the whole allowed range when a value falls outside it.

    It overrides a private method of Param (``internals.PARAM_VALIDATE_BOUNDS``).
    """

    def _validate_bounds(self, val, bounds, inclusive_bounds):
        try:
            super()._validate_bounds(val, bounds, inclusive_bounds)
        except ValueError as error:
            low, high = bounds
            raise ValueError(f"{error} Its bounds are {low} to {high}.") from None


class Slider(FullBounds, param.Integer):
    """An integer slider."""


class EvenSlider(Slider):
    """An integer slider that only takes even values.

    It steps by 2 unless told another even step, from an even lower bound: the build
    walks bounds[0], bounds[0] + step, ...
    """

    even = True  # the deep-link grammar checks parity before the figure sees the value

    def __init__(self, default=0, *, step=2, bounds=None, **params):
        low = bounds[0] if bounds else None
        if step % 2 or (low is not None and low % 2):
            raise ValueError(
                f"EvenSlider(default={default}, bounds={bounds}, step={step}): an even slider "
                "needs an even lower bound and an even step (2 if not given), or its steps "
                "reach odd values"
            )
        super().__init__(default, step=step, bounds=bounds, **params)

    def _validate(self, val):
        super()._validate(val)
        if val is not None and val % 2:
            owner = getattr(self.owner, "name", self.owner)
            raise ValueError(f"Parameter '{owner}.{self.name}' must be even, not {val}.")


@cache
def _moving_sliders(cls) -> tuple[str, ...]:
    opening = cls()
    moving = set(opening.moved_bounds())
    for name in opening.sliders():
        parameter = cls.param[name]
        ends = getattr(parameter, "objects", None) or getattr(parameter, "bounds", None) or ()
        for value in ends:
            figure = cls()
            try:
                setattr(figure, name, value)
            except ValueError:
                continue
            moving |= set(figure.moved_bounds())
    return tuple(name for name in opening.sliders() if name in moving)


# A moving slider's bounds are tabled only while its movers' states are this many or fewer.
MOVED_STATES_MAX = 4096


def _domain(parameter) -> list:
    """Every value a slider takes: its choices, or its integers in steps; [] if unlisted."""
    if getattr(parameter, "objects", None):
        return list(parameter.objects)
    bounds = getattr(parameter, "bounds", None)
    if not isinstance(parameter, param.Integer) or not bounds or None in bounds:
        return []
    return list(range(bounds[0], bounds[1] + 1, getattr(parameter, "step", None) or 1))


def _movers(cls, moving: str, sliders: list[str]) -> list[str]:
    """The sliders that move ``moving`` 's bounds, each found by setting it alone."""
    start = list(cls().param[moving].bounds)
    found = []
    for name in sliders:
        for value in _domain(cls.param[name]):
            figure = cls()
            setattr(figure, name, value)
            if list(figure.param[moving].bounds) != start:
                found.append(name)
                break
    return found


@cache
def _moving_bounds(cls) -> dict[str, dict]:
    opening = cls()
    steady = [name for name in opening.sliders() if name not in cls.moving_sliders()]
    tables = {}
    for moving in cls.moving_sliders():
        by = _movers(cls, moving, steady)
        domains = [_domain(cls.param[name]) for name in by]
        if not by or math.prod(len(domain) for domain in domains) > MOVED_STATES_MAX:
            continue
        bounds = {}
        for values in itertools.product(*domains):
            figure = cls()
            figure.param.update(dict(zip(by, values, strict=True)))
            bounds[state_key(values)] = list(figure.param[moving].bounds)
        at = {name: getattr(opening, name) for name in by}
        tables[moving] = {"by": by, "at": at, "bounds": bounds}
    return tables


class Plot:
    """One plot of a drawing: its key, its elements by key, and HoloViews plot options.

    The elements are drawn in order, one over the other; ``options`` are the
    plot's (``width``, ``height``, ``legend_position``, ``invert_axes``, ...).
    A title and ranges the frame sets for ``key`` need not be repeated here.
    """

    def __init__(self, key: str, elements: dict, **options):
        self.key, self.elements, self.options = key, elements, options


EVERYTHING = "*"  # ``Figure.invariant``: the slider leaves every frame element as it is


class Figure(param.Parameterized):
    """One explanatory figure: its sliders, its frame, its texts and what it draws."""

    __abstract = True  # only subclasses are figures (param.descendents)

    figure_id: ClassVar[int]
    title: ClassVar[str]
    caption: ClassVar[str]
    # Slider name → "buttons", or {"type": "buttons", "orientation": "vertical", ...}.
    widgets: ClassVar[dict] = {}
    # Slider name → {word an older deep link used: the value it stands for}.
    link_aliases: ClassVar[dict] = {}
    # Slider name → (choice parameter, the choices that use it): shown only then.
    used_when: ClassVar[dict] = {}
    # Sliders whose value follows from the others (a preset named by its sizes).
    implied: ClassVar[tuple] = ()
    # What a slider is for, when its point is what stays: slider name → the frame
    # elements it leaves exactly as they are (710's pos leaves the dot-product curves),
    # or EVERYTHING for a slider whose point is that nothing drawn moves. Every other
    # slider changes what is drawn; tests/test_figures checks both directions.
    invariant: ClassVar[dict] = {}
    # Each number the caption states that no check computes, declared beside it as a
    # page declares its own (``numbers:``): number → a figure view that shows it
    # (``figure-710?pos=30``), or why it is no quantity ("formula: 2π") or its source.
    # ``posviz check`` computes each view again and refuses a number the caption lost.
    numbers: ClassVar[dict[str, str]] = {}
    # What the benchmarks step and watch: by default the first number slider and plot.
    stepped_slider: ClassVar[str] = ""
    watched_plot: ClassVar[str] = ""

    def sliders(self) -> list[str]:
        """Parameter names shown as widgets, in declaration order."""
        return [name for name in self.param if name != "name"]

    def values(self) -> dict:
        """The sliders' values, by name."""
        return {name: getattr(self, name) for name in self.sliders()}

    def moved_bounds(self) -> dict[str, list]:
        """The sliders whose bounds the others moved (a query kept inside its image)."""
        return {
            name: list(self.param[name].bounds)
            for name in self.sliders()
            if getattr(self.param[name], "bounds", None)
            and list(self.param[name].bounds) != list(type(self).param[name].bounds)
        }

    @classmethod
    def moving_sliders(cls) -> tuple[str, ...]:
        """The sliders whose bounds the others move: only the figure can check their values.

        Found by moving each slider alone to each end of its range (each choice
        of a Selector) and watching ``moved_bounds``; kept per class.
        """
        return _moving_sliders(cls)

    @classmethod
    def moving_bounds(cls) -> dict[str, dict]:
        """Each moving slider's bounds in every state of the sliders that move them.

        ``{slider: {"by": [mover, ...], "at": {mover: opening value},
        "bounds": {state_key(values): [low, high]}}}``, for a checker that runs no
        figure (the MyST plugin). A slider whose movers have more than
        ``MOVED_STATES_MAX`` states, or a non-integer range, is left out.
        """
        return _moving_bounds(cls)

    def frame(self) -> Frame:
        """What the current values put on screen: element key → properties."""
        raise NotImplementedError

    def draw(self, hv, frame: Frame) -> list[Plot]:
        """The plots, left to right, drawn with HoloViews (``hv``) at ``frame``."""
        raise NotImplementedError

    def readout(self) -> str:
        """The current values and what they give, as Markdown: bold and line breaks only."""
        raise NotImplementedError

    def describe(self) -> str:
        """One sentence saying what the plots show: by default, the readout as plain text."""
        return f"{self.title}: " + self.readout().replace("**", "").replace("  \n", " ")

    def table(self) -> tuple[str, list[str], list[tuple]]:
        """(caption, column names, rows) of the plotted data: by default, the slider values."""
        values = [(self.param[name].label, getattr(self, name)) for name in self.sliders()]
        return ("Slider values", ["slider", "value"], values)

    def __panel__(self):
        """The figure as Panel lays it out, loaded only when it is shown."""
        from posviz.drawing.layout import figure_layout

        return figure_layout(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Shown in a notebook as its Panel view."""
        import panel as pn

        return pn.panel(self)._repr_mimebundle_(include, exclude)
