"""Every figure: its sliders, its registry entry, and what it draws in Bokeh."""

import importlib
import subprocess
import sys
from pathlib import Path

import holoviews as hv
import numpy as np
import param
import pytest
from bokeh.models import GlyphRenderer

import posviz.figures
from posviz.figures import FIGURES, AttentionCost, ClockHands, Figure, ParameterBudget, QueryReach
from posviz.figures.parameter_budget import PRESETS
from posviz.maths import budget, cost, encoding, reach


def rendered_sources(dynamic_map):
    """Bokeh data of each glyph renderer of a rendered plot, in drawing order."""
    model = hv.render(dynamic_map)
    return [r.data_source.data for r in model.renderers if isinstance(r, GlyphRenderer)]


def test_registry_holds_every_figure_class_of_the_package_by_its_id():
    modules = sorted(
        f"posviz.figures.{path.stem}"
        for path in Path(posviz.figures.__file__).parent.glob("*.py")
        if path.stem not in ("__init__", "base")
    )
    defined = [
        cls
        for module in modules
        for cls in vars(importlib.import_module(module)).values()
        if isinstance(cls, type) and issubclass(cls, Figure) and cls.__module__ == module
    ]
    assert len(defined) == len(modules)  # one figure per file
    assert FIGURES == {cls.figure_id: cls for cls in defined}
    assert list(FIGURES) == sorted(FIGURES)
    for figure_id, cls in FIGURES.items():
        assert cls.figure_id == figure_id
        assert issubclass(cls, param.Parameterized)
        assert cls.title and len(cls.caption) > 80
        assert getattr(posviz.figures, cls.__name__) is cls  # from posviz.figures import X


def test_ids_read_from_the_source_match_the_classes():
    assert posviz.figures.figure_ids() == set(FIGURES)


def test_reading_the_ids_imports_neither_holoviews_nor_panel():
    code = (
        "import sys\n"
        "from posviz.figures import figure_ids\n"
        "from posviz.content import load\n"
        "ids = figure_ids(); load()\n"
        "print(sorted(ids), sorted(m for m in ('holoviews', 'panel', 'bokeh', 'param') "
        "if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{sorted(FIGURES)} []"


def test_only_a_class_that_sets_an_integer_figure_id_counts(tmp_path):
    source = tmp_path / "draft.py"
    source.write_text("class Draft:\n    title = 'x'\n", "utf-8")
    assert posviz.figures._declared_ids(source) == []
    source.write_text("class Draft:\n    figure_id: int = 12\n", "utf-8")
    assert posviz.figures._declared_ids(source) == [12]
    source.write_text("class Draft:\n    figure_id = '12'\n", "utf-8")
    assert posviz.figures._declared_ids(source) == []


HV_DEFAULTS = """
import json, sys
import holoviews as hv
hv.extension("bokeh", logo=False)
def defaults():
    options = {
        name: {group: hv.Store.options("bokeh")[name].groups[group].kwargs
               for group in ("plot", "style")}
        for name in ("Curve", "Scatter", "Bars", "Image", "Labels", "Overlay", "VLine")
    }
    datatypes = {"Dataset": hv.Dataset.datatype, "Image": hv.Image.datatype,
                 "Curve": hv.Curve.datatype}
    return json.loads(json.dumps({"options": options, "datatypes": datatypes}, default=repr))
before = defaults()
import posviz.figures
for cls in posviz.figures.FIGURES.values():  # every figure module imported, every plot drawn
    figure = cls()
    for plot in figure.plots():
        hv.render(plot)
after = defaults()
print(json.dumps([before == after, before, after]))
"""


def test_importing_and_drawing_the_figures_leaves_holoviews_defaults_alone():
    import json

    result = subprocess.run([sys.executable, "-c", HV_DEFAULTS], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    same, before, after = json.loads(result.stdout)
    assert before["datatypes"]["Dataset"][0] == "dataframe"  # HoloViews' own default
    assert after == before
    assert same


@pytest.mark.parametrize("cls", FIGURES.values())
def test_every_plot_has_no_toolbar_and_only_the_tools_it_asks_for(cls):
    for plot in cls().plots():
        assert hv.render(plot).toolbar_location is None
        elements = plot[()].traverse(
            lambda e: hv.Store.lookup_options("bokeh", e, "plot").kwargs.get("default_tools"),
            [hv.Curve, hv.Scatter, hv.Bars, hv.Image, hv.Labels],
        )
        assert elements and all(tools == [] for tools in elements)


@pytest.mark.parametrize("cls", FIGURES.values())
def test_every_slider_is_documented_and_bounded(cls):
    figure = cls()
    for name in figure.sliders():
        parameter = figure.param[name]
        assert parameter.doc, f"{cls.__name__}.{name} has no doc"
        if isinstance(parameter, param.Number):
            assert None not in parameter.bounds


@pytest.mark.parametrize(
    "cls,name,value",
    [
        (ClockHands, "pos", 101),
        (ClockHands, "d_model", 8),
        (AttentionCost, "k", 33),
        (AttentionCost, "m", 0),
        (ParameterBudget, "n_layers", 25),
        (QueryReach, "memory_side", 17),
        (QueryReach, "side", 7),
    ],
)
def test_out_of_bounds_values_name_the_parameter_and_its_bounds(cls, name, value):
    figure = cls()
    low, high = figure.param[name].bounds
    with pytest.raises(ValueError) as caught:
        setattr(figure, name, value)
    message = str(caught.value)
    assert f"{cls.__name__}" in message and name in message
    assert f"bounds are {low} to {high}" in message
    assert getattr(figure, name) == figure.param[name].default


def test_query_reach_names_the_schemes_it_takes():
    with pytest.raises(ValueError, match="diagonal") as caught:
        QueryReach(scheme="diagonal")
    for name in reach.SCHEMES:
        assert name in str(caught.value)
    assert QueryReach.param.scheme.objects == list(reach.SCHEMES)


def test_clock_hands_refuses_an_odd_width():
    with pytest.raises(ValueError, match="'ClockHands.*d_model' must be even, not 129"):
        ClockHands(d_model=129)


# --- 96 ---------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_budget_presets_come_from_data_and_render(preset):
    figure = ParameterBudget(preset=preset)
    assert {name: getattr(figure, name) for name in PRESETS[preset]} == PRESETS[preset]
    assert figure.counts() == budget.parameter_counts(**PRESETS[preset])
    assert figure.total() == sum(figure.counts().values())
    bars = rendered_sources(figure.plots()[0])[0]
    drawn = dict(zip(bars["role"], bars["millions"], strict=True))
    assert drawn == pytest.approx({role: n / 1e6 for role, n in figure.counts().items()})


def test_moving_a_slider_leaves_the_preset_and_coming_back_finds_it():
    figure = ParameterBudget()
    assert figure.preset == "base"
    figure.d_model = 640
    assert figure.preset == "custom"
    figure.d_model = 512
    assert figure.preset == "base"
    figure.preset = "big"
    assert (figure.d_model, figure.d_ff) == (1024, 4096)


def test_the_heads_count_is_not_a_slider():
    assert not any("head" in name for name in ParameterBudget().sliders())


# --- 710 --------------------------------------------------------------------


def test_clock_hands_draws_the_marker_at_pos_and_a_curve_that_ignores_pos():
    figure = ClockHands(pos=30, d_model=64)
    hands_sources = rendered_sources(figure.plots()[0])
    sines = encoding.encoding(hands_sources[0]["position"], 64)[:, 0]
    np.testing.assert_allclose(hands_sources[0]["value"], sines)
    markers = hands_sources[-1]
    np.testing.assert_allclose(markers["position"], 30)
    idx = encoding.hand_indices(64)
    np.testing.assert_allclose(
        markers["value"], encoding.encoding([30], 64)[0][[2 * i for i in idx]]
    )

    before = rendered_sources(figure.plots()[1])
    figure.pos = 77
    after = rendered_sources(figure.plots()[1])
    for solid_or_dashed in (0, 1):
        np.testing.assert_allclose(
            before[solid_or_dashed]["PE(pos)·PE(pos+k)"],
            after[solid_or_dashed]["PE(pos)·PE(pos+k)"],
            atol=1e-9,
        )
    rows, closed = figure.dot_products(after[0]["offset k"])
    np.testing.assert_allclose(after[0]["PE(pos)·PE(pos+k)"], rows)
    np.testing.assert_allclose(after[1]["PE(pos)·PE(pos+k)"], closed)


def test_clock_hands_encoding_has_the_width_of_d_model():
    figure = ClockHands(d_model=256)
    assert figure.encoded(np.arange(10)).shape == (10, 256)


# --- 7256 -------------------------------------------------------------------


@pytest.mark.parametrize("k,m", [(7, 32), (1, 1), (32, 256), (8, 32)])
def test_cost_curves_are_log10_of_the_closed_forms(k, m):
    figure = AttentionCost(k=k, m=m)
    sources = rendered_sources(figure.plots()[0])[:3]
    for source, scheme in zip(sources, cost.SCHEMES, strict=True):
        sides = np.asarray(source["image side S (pixels)"])
        expected = {
            "global": sides**4,
            "window": sides**2 * np.minimum(k, sides) ** 2,
            "axial": 2 * sides**2 * np.minimum(m, sides),
        }[scheme]
        np.testing.assert_allclose(source["log10 entries per layer"], np.log10(expected))


def test_cost_readout_states_the_ratio_and_the_tie():
    assert "= **1.00**: they tie" in AttentionCost(k=8, m=32).readout()
    assert "window is cheaper" in AttentionCost(k=4, m=32).readout()
    assert "axial is cheaper" in AttentionCost(k=16, m=32).readout()


# --- 4121 -------------------------------------------------------------------


@pytest.mark.parametrize("scheme", reach.SCHEMES)
@pytest.mark.parametrize("where", [(8, 8), (0, 0), (15, 3)])
def test_reach_grids_draw_the_reach_with_the_query_darkest(scheme, where):
    figure = QueryReach(scheme=scheme, row=where[0], col=where[1])
    for layers, plot in zip((1, 2), figure.plots(), strict=True):
        # Bokeh draws image row j at y = j; the inverted y axis puts row 0 on top.
        drawn = rendered_sources(plot)[0]["image"][0]
        expected = reach.reach(16, *where, scheme, layers).astype(float)
        expected[where] = 2
        assert drawn.shape == (16, 16)
        np.testing.assert_array_equal(drawn, expected)


def test_shrinking_the_image_pulls_the_query_inside():
    figure = QueryReach(side=32, row=30, col=31)
    figure.side = 10
    assert (figure.row, figure.col) == (9, 9)
    assert figure.param.row.bounds == (0, 9)
    with pytest.raises(ValueError, match="bounds are 0 to 9"):
        figure.row = 10


def test_rendering_and_updating_every_view_never_imports_pandas():
    """The export ships no pandas: a figure that imported it would break there."""

    code = """
import os, sys
os.environ["POSVIZ_EXPORT"] = "1"
from bokeh.document import Document
from posviz.compose.views import servable
from posviz.figures import FIGURES
for name in ("topic-positional-encoding", "gallery"):
    servable(name).get_root(Document())
for cls in FIGURES.values():
    figure = cls()
    roots = [__import__("holoviews").render(plot) for plot in figure.plots()]
    for name in figure.sliders():
        parameter = figure.param[name]
        if hasattr(parameter, "bounds") and parameter.bounds:
            setattr(figure, name, parameter.bounds[1])
print(sorted(m for m in ("pandas", "dateutil", "pytz") if m in sys.modules))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
