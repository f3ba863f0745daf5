"""What every figure shares: sliders with clear bound errors, and its view.

A figure is a ``param.Parameterized`` (through ``pn.viewable.Viewer``): its
parameters are the sliders, its ``@param.depends`` methods return HoloViews
elements, and ``__panel__`` lays out widgets, plot, current values and caption.
"""

import inspect
import weakref
from contextlib import ExitStack, contextmanager
from typing import ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param

from posviz.figures.layout import figure_layout
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
# replaces, where option objects applied per update cost time on every plot
# (benchmarks/notes.md, "Numbers behind the code").
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
    2D canvas on every repaint, a slider step's whole budget in Chromium
    without a GPU, where a 2D canvas draws a few thousand points at once
    (benchmarks/notes.md, "Numbers behind the code").
    """

    def hook(plot, element):
        plot.state.name = name
        plot.state.output_backend = "canvas"

    return hook


def apply_frame(models: dict, frame: dict, prefix: str) -> None:
    """Set the properties ``frame`` names on the Bokeh ``models`` (name → model) it names.

    The one step every figure shares (``posviz.frames`` describes a frame).
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

    # The figure's frame: slider values → what they change on screen (``posviz.frames``).
    frame_of: ClassVar = None
    # Sliders whose value follows from the others (a preset named by its sizes).
    implied: ClassVar[tuple] = ()
    # The plot a step of ``stepped_slider`` redraws (its ``names_plot`` key): what
    # the benchmarks step and watch. Empty: the benchmarks leave the figure out.
    watched_plot: ClassVar[str] = ""
    stepped_slider: ClassVar[str] = ""
    # The least height in px the figure's island takes, (wide, narrow): at least
    # 700 px of viewport, where the controls sit beside the plots, and below.
    # Its island keeps that room until it is drawn (site.css), so nothing below
    # it moves when it is, and a far island that waits is never an empty box
    # (``tests/ui/test_lazy.py`` checks each figure's against its drawn height).
    island_height: ClassVar[tuple[int, int]] = (420, 640)

    def __init__(self, **params):
        super().__init__(**params)
        if self.frame_of is not None:
            # After the figure's own watchers (a preset moving sizes, a side moving the query).
            self.param.watch(self._step, self.sliders(), precedence=100)

    @classmethod
    def model_name(cls, key: str) -> str:
        """The name of the Bokeh model a frame calls ``key``."""
        return f"posviz-{cls.figure_id}-{key}"

    def names_plot(self, key: str):
        """A HoloViews hook for a plot (an overlay or a lone element): name it, draw it on canvas.

        The plot is named ``posviz-<id>-<key>`` (see ``name_plot``), its legend
        entries ``<their data's name>:label``, and it is remembered, weakly, for
        the figure's steps.
        """
        plots = self.__dict__.setdefault("_drawn", weakref.WeakSet())
        named = name_plot(self.model_name(key))

        def hook(plot, element):
            named(plot, element)
            for legend in plot.state.legend:
                for item in legend.items:
                    sources = [getattr(r, "data_source", None) for r in item.renderers]
                    if sources and (sources[0].name or "").startswith("posviz-"):
                        item.name = f"{sources[0].name}:label"
            plots.add(plot)
            plot._posviz_models = None  # named anew: look again

        return hook

    def names_data(self, key: str):
        """A HoloViews hook for an element: name its data (or its line, for hv.VLine) ``key``."""
        name = self.model_name(key)

        def hook(plot, element):
            # A glyph draws its data source; an annotation (a Span) is its own model.
            drawn = "source" if "glyph_renderer" in plot.handles else "glyph"
            plot.handles[drawn].name = name

        return hook

    def drawn(self) -> list:
        """The live HoloViews plots named by ``names_plot``."""
        return list(self.__dict__.get("_drawn", ()))

    def values(self) -> dict:
        """The sliders' values, by name."""
        return {name: getattr(self, name) for name in self.sliders()}

    def frame(self) -> dict:
        """What the current values put on screen (``posviz.frames``)."""
        return self.frame_of(self.values())

    def _step(self, *events):
        """Apply the current frame to every drawn plot, in place."""
        plots = self.drawn()
        if not plots:
            return
        frame, prefix = self.frame(), self.model_name("")
        with self.sending():
            for plot in plots:
                apply_frame(named_models(plot), frame, prefix)

    @contextmanager
    def sending(self):
        """Hold each Document the figure is drawn in while it is updated in place.

        The changes then go out as after HoloViews' own refresh: Panel's
        ``hold`` releases them to the session under a server (also from
        another thread) and to the page in the export, and the plot's
        ``push`` sends them over the comm in a notebook.
        """
        documents = {}
        for plot in self.drawn():
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

    def _written(self, text: str):
        """The frame module's function that writes ``text`` (``"readout"``), or None.

        The same functions the worker's numpy tier calls (``runtime.compute``), so
        the two tiers say the same.
        """
        return getattr(inspect.getmodule(self.frame_of), text, None) if self.frame_of else None

    def readout(self) -> str:
        """The current values and what they give, as Markdown.

        By default the frame module's ``readout(values)``; a figure without one
        overrides this.
        """
        if written := self._written("readout"):
            return written(self.values())
        raise NotImplementedError

    def describe(self) -> str:
        """A short sentence saying what the plots show at the current values.

        The text alternative of the plots; by default the readout without its
        Markdown, unless the frame module writes it (``describe(values)``). A
        figure says more by overriding it.
        """
        if written := self._written("describe"):
            return written(self.values())
        return f"{self.title}: " + self.readout().replace("**", "").replace("  \n", " ")

    def table(self) -> tuple[str, list[str], list[tuple]]:
        """The plots' current data as (caption, column names, rows) for "Show the numbers".

        By default the frame module's ``table(values)``, if it has one, else the
        slider values; a figure overrides it with what it plots.
        """
        if written := self._written("table"):
            return written(self.values())
        values = [(self.param[name].label, getattr(self, name)) for name in self.sliders()]
        return ("Slider values", ["slider", "value"], values)

    def __panel__(self):
        """The figure as Panel lays it out (``posviz.figures.layout``)."""
        return figure_layout(self)
