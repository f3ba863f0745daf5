"""What every figure shares: sliders with clear bound errors, and its view.

A figure is a ``param.Parameterized`` (through ``pn.viewable.Viewer``): its
parameters are the sliders, its ``@param.depends`` methods return HoloViews
elements, and ``__panel__`` lays out widgets, plot, current values and caption.
"""

import functools
import weakref
from contextlib import ExitStack, contextmanager
from typing import ClassVar

import holoviews as hv
import panel as pn
import param

from posviz.internals import FullBounds

# The figures' options are Bokeh options, so the Bokeh backend is loaded (and
# made current, as in any notebook that uses it). No default is set: what
# follows is passed to posviz's own elements only, so importing posviz leaves
# a notebook's HoloViews defaults as they were.
hv.extension("bokeh", logo=False)

# Figures hand HoloViews numpy arrays and tuples only: these interfaces hold them.
DATATYPES = ["dictionary", "grid", "array"]
IMAGE_DATATYPES = ["grid", "image", "dictionary"]

# Explanatory figures are moved with sliders, not panned or zoomed: no toolbar,
# and no default tools (fewer Bokeh models to build and ship on every page).
# A figure that wants hover asks for it with tools=["hover"]. Passed as
# keywords in each element's own .opts call (``.opts(color=..., **QUIET)``),
# and toolbar=None on each overlay: as cheap as the HoloViews default it
# replaces, where option objects applied per update cost ~1.5 ms a plot.
QUIET = {"default_tools": [], "toolbar": None}

# A caption says what to do and what to notice: a short label is not enough.
# tests/test_figures.py holds every figure's caption to it (CONTRIBUTING states it).
CAPTION_MIN_CHARS = 80

PALETTE = ("#1f5fa8", "#e07b1a", "#2a9d5c", "#b8336a", "#6b4fa0", "#7a7a7a")
INK = "#1d2433"


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


class Slider(FullBounds, param.Integer):
    """An integer slider."""


class EvenSlider(Slider):
    """An integer slider that only takes even values."""

    def _validate(self, val):
        super()._validate(val)
        if val is not None and val % 2:
            owner = getattr(self.owner, "name", self.owner)
            raise ValueError(f"Parameter '{owner}.{self.name}' must be even, not {val}.")


def name_plot(name: str):
    """A HoloViews hook for every posviz Bokeh figure: name it, and draw it on a 2D canvas.

    The name is how pages, tests and benchmarks find the figure. HoloViews asks
    for WebGL by default; BokehJS then copies the WebGL canvas into the page's
    2D canvas on every repaint, which cost ~50 ms a slider step in Chromium
    without a GPU (benchmarks/notes.md). A few thousand points draw in a
    couple of milliseconds on a 2D canvas.
    """

    def hook(plot, element):
        plot.state.name = name
        plot.state.output_backend = "canvas"

    return hook


def in_place(method):
    """Mark a figure's watcher that updates its drawn plots in place: run it inside ``sending``."""

    @functools.wraps(method)
    def step(self, *args, **kwargs):
        with self.sending():
            return method(self, *args, **kwargs)

    return step


class Figure(pn.viewable.Viewer):
    """One explanatory figure: sliders, live plot(s), readout and caption.

    A subclass in its own module of ``posviz.figures`` is found by that
    package (no list to edit); it sets ``figure_id``, ``title`` and ``caption``.
    """

    __abstract = True  # only subclasses are figures (param.descendents)

    figure_id: ClassVar[int]
    title: ClassVar[str]
    caption: ClassVar[str]
    # Parameter name → widget class, where the default slider does not fit.
    widgets: ClassVar[dict] = {}
    # Parameter name → {word an older deep link used: the value it stands for}.
    link_aliases: ClassVar[dict] = {}
    # Slider name → (choice parameter, the choices that use it): shown only then
    # (``posviz.figures.controls.idle``); its value and deep link are kept meanwhile.
    used_when: ClassVar[dict] = {}

    def track(self, key: str):
        """A HoloViews hook that remembers each plot drawn under ``key``.

        A slider that changes only data (not what is drawn nor the ranges)
        does not rebuild the HoloViews element: the figure's watcher updates
        the remembered plots' Bokeh models in place (``drawn``), so a step
        sends just the changed columns. Plots are held weakly.
        """
        plots = self.__dict__.setdefault("_drawn", {}).setdefault(key, weakref.WeakSet())

        def hook(plot, element):
            plots.add(plot)

        return hook

    def drawn(self, key: str) -> list:
        """The live HoloViews plots remembered under ``key`` (see ``track``)."""
        return list(self.__dict__.get("_drawn", {}).get(key, ()))

    @contextmanager
    def sending(self):
        """Hold each Document the figure is drawn in while it is updated in place.

        The changes then go out as after HoloViews' own refresh: Panel's
        ``hold`` releases them to the session under a server (also from
        another thread) and to the page in the export, and the plot's
        ``push`` sends them over the comm in a notebook.
        """
        documents = {}
        for plots in self.__dict__.get("_drawn", {}).values():
            for plot in list(plots):
                if plot.document is not None:
                    documents.setdefault(id(plot.document), plot)
        with ExitStack() as stack:
            for plot in documents.values():
                stack.enter_context(pn.io.hold(plot.document, comm=plot.comm))
            yield
        for plot in documents.values():
            plot.push()

    def sliders(self) -> list[str]:
        """Parameter names shown as widgets, in declaration order."""
        return [name for name in self.param if name != "name"]

    def plots(self) -> list:
        """The live HoloViews objects (DynamicMaps), left to right."""
        raise NotImplementedError

    def readout(self) -> str:
        """The current values and what they give, as Markdown."""
        raise NotImplementedError

    def describe(self) -> str:
        """A short sentence saying what the plots show at the current values.

        The text alternative of the plots; by default the readout without its
        Markdown. A figure says more by overriding it.
        """
        return f"{self.title}: " + self.readout().replace("**", "").replace("  \n", " ")

    def table(self) -> tuple[str, list[str], list[tuple]]:
        """The plots' current data as (caption, column names, rows) for "Show the numbers".

        By default the slider values; a figure overrides it with what it plots.
        """
        values = [(self.param[name].label, getattr(self, name)) for name in self.sliders()]
        return ("Slider values", ["slider", "value"], values)

    def __panel__(self):
        """The figure as Panel lays it out (``posviz.compose.layout``)."""
        from posviz.compose.layout import figure_layout

        return figure_layout(self)
