"""What every figure shares: sliders with clear bound errors, and its view.

A figure is a ``param.Parameterized`` (through ``pn.viewable.Viewer``): its
parameters are the sliders, its ``@param.depends`` methods return HoloViews
elements, and ``__panel__`` lays out widgets, plot, current values and caption.
"""

from typing import ClassVar

import holoviews as hv
import panel as pn
import param

from posviz.figures.controls import steady, widgets_for

hv.extension("bokeh", logo=False)

# Figures hand HoloViews numpy arrays and tuples only. Naming the interfaces
# that hold those keeps HoloViews from probing for pandas (importing it) on
# every element: the browser then neither downloads nor imports pandas.
hv.core.data.Dataset.datatype = ["dictionary", "grid", "array"]
hv.Image.datatype = ["grid", "image", "dictionary"]

# Explanatory figures are moved with sliders, not panned or zoomed: no toolbar,
# and no default tools (fewer Bokeh models to build and ship on every page).
# A figure that wants hover asks for it with tools=["hover"].
hv.opts.defaults(
    *[
        getattr(hv.opts, element)(default_tools=[], toolbar=None)
        for element in ("Curve", "Scatter", "Bars", "Image", "Labels")
    ],
    hv.opts.Overlay(toolbar=None),
)

PALETTE = ("#1f5fa8", "#e07b1a", "#2a9d5c", "#b8336a", "#6b4fa0", "#7a7a7a")
INK = "#1d2433"


class _FullBounds:
    """Say the whole allowed range when a value falls outside it."""

    def _validate_bounds(self, val, bounds, inclusive_bounds):
        try:
            super()._validate_bounds(val, bounds, inclusive_bounds)
        except ValueError as error:
            low, high = bounds
            raise ValueError(f"{error} Its bounds are {low} to {high}.") from None


class Slider(_FullBounds, param.Integer):
    """An integer slider."""


class EvenSlider(Slider):
    """An integer slider that only takes even values."""

    def _validate(self, val):
        super()._validate(val)
        if val is not None and val % 2:
            owner = getattr(self.owner, "name", self.owner)
            raise ValueError(f"Parameter '{owner}.{self.name}' must be even, not {val}.")


def name_plot(name: str):
    """A HoloViews hook that names the Bokeh figure, so pages and tests can find it."""

    def hook(plot, element):
        plot.state.name = name

    return hook


class Figure(pn.viewable.Viewer):
    """One explanatory figure: sliders, live plot(s), readout and caption."""

    figure_id: ClassVar[int]
    title: ClassVar[str]
    caption: ClassVar[str]
    # Parameter name → widget class, where the default slider does not fit.
    widgets: ClassVar[dict] = {}

    def sliders(self) -> list[str]:
        """Parameter names shown as widgets, in declaration order."""
        return [name for name in self.param if name != "name"]

    def plots(self) -> list:
        """The live HoloViews objects (DynamicMaps), left to right."""
        raise NotImplementedError

    def readout(self) -> str:
        """The current values and what they give, as Markdown."""
        raise NotImplementedError

    def values(self) -> dict:
        return {name: getattr(self, name) for name in self.sliders()}

    def __panel__(self):
        controls = steady(
            pn.Param(
                self.param,
                parameters=self.sliders(),
                widgets=widgets_for(self),  # a value the figure refuses snaps back
                show_name=False,
                width=230,
                sizing_mode="fixed",
            ),
            self,
        )
        readout = pn.pane.Markdown(
            pn.bind(lambda *_: self.readout(), *[self.param[name] for name in self.sliders()]),
            css_classes=["posviz-readout"],
            margin=(0, 10),
        )
        plots = pn.Row(*[pn.pane.HoloViews(plot, linked_axes=False) for plot in self.plots()])
        return pn.Column(
            pn.Row(controls, pn.Column(plots, readout)),
            pn.pane.Markdown(self.caption, css_classes=["posviz-caption"], margin=(0, 10)),
            css_classes=["posviz-figure"],
            name=f"figure-{self.figure_id}",
        )
