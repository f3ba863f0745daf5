"""What each figure should draw, computed apart from the figure: one oracle per figure.

An oracle is a module named like its figure's module
(``src/posviz/figures/clock_hands.py`` → ``tests/oracles/clock_hands.py``). It
defines

* ``drawn_and_expected(figure, values) -> (drawn, expected)``: two flat dicts,
  what the figure's plots draw and what the maths says for the slider
  ``values``, compared key by key by ``tests/test_figures.py``;
* optionally ``expected_values(cls, asked) -> dict``: every slider's value once
  ``cls(**asked)`` is built, where sliders move each other (the default: the
  defaults, then what was asked).

``posviz new figure`` writes one beside the figure it writes. A figure without an
oracle still gets every generic check, and its drawing checks fail, naming the
file to add: a figure is not done until what it draws is checked.
"""

import importlib
import importlib.util

import holoviews as hv
from bokeh.models import GlyphRenderer, Span


def oracle_for(cls):
    """The oracle module of figure class ``cls``, or None if it has none."""
    name = f"{__name__}.{cls.__module__.rsplit('.', 1)[-1]}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def lacks_oracle(cls) -> str:
    """Why a figure without an oracle fails its drawing checks, and where the oracle goes."""
    stem = cls.__module__.rsplit(".", 1)[-1]
    return (
        f"{cls.__name__} (figure {cls.figure_id}) has no oracle of what it draws: add "
        f"tests/oracles/{stem}.py with drawn_and_expected(figure, values) "
        "(see CONTRIBUTING.md, 'What a figure draws')"
    )


def expected_values(cls, asked: dict) -> dict:
    """Every slider's value once ``cls(**asked)`` is built: its oracle's rule, else the
    defaults with what was asked."""
    oracle = oracle_for(cls)
    if oracle is not None and hasattr(oracle, "expected_values"):
        return oracle.expected_values(cls, asked)
    return {name: cls.param[name].default for name in cls().sliders()} | asked


def rendered_sources(dynamic_map):
    """Bokeh data of each glyph renderer of a rendered plot, in drawing order."""
    model = hv.render(dynamic_map)
    return [r.data_source.data for r in model.renderers if isinstance(r, GlyphRenderer)]


def spans(dynamic_map) -> list[float]:
    """Locations of the lines (hv.VLine and hv.HLine alike) of a rendered plot."""
    return [span.location for span in hv.render(dynamic_map).select(Span)]
