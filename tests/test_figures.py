"""Every figure: its sliders, its registry entry, and what it draws in Bokeh."""

import holoviews as hv
import numpy as np
import param
import pytest
from bokeh.models import GlyphRenderer

from posviz.figures import FIGURES, AttentionCost, ClockHands, Figure, ParameterBudget, QueryReach
from posviz.figures.parameter_budget import PRESETS
from posviz.maths import budget, cost, encoding, reach


def rendered_sources(dynamic_map):
    """Bokeh data of each glyph renderer of a rendered plot, in drawing order."""
    model = hv.render(dynamic_map)
    return [r.data_source.data for r in model.renderers if isinstance(r, GlyphRenderer)]


def test_registry_maps_ids_to_the_public_classes():
    assert FIGURES == {96: ParameterBudget, 710: ClockHands, 7256: AttentionCost, 4121: QueryReach}
    for figure_id, cls in FIGURES.items():
        assert cls.figure_id == figure_id
        assert issubclass(cls, Figure) and issubclass(cls, param.Parameterized)
        assert cls.title and len(cls.caption) > 80


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
        (QueryReach, "scheme", 5),
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
    drawn = dict(zip(bars["role"], bars["millions"]))
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
    assert figure.encoding(np.arange(10)).shape == (10, 256)


# --- 7256 -------------------------------------------------------------------


@pytest.mark.parametrize("k,m", [(7, 32), (1, 1), (32, 256), (8, 32)])
def test_cost_curves_are_log10_of_the_closed_forms(k, m):
    figure = AttentionCost(k=k, m=m)
    sources = rendered_sources(figure.plots()[0])[:3]
    for source, scheme in zip(sources, cost.SCHEMES):
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


@pytest.mark.parametrize("scheme", range(5))
@pytest.mark.parametrize("where", [(8, 8), (0, 0), (15, 3)])
def test_reach_grids_draw_the_reach_with_the_query_darkest(scheme, where):
    figure = QueryReach(scheme=scheme, row=where[0], col=where[1])
    for layers, plot in zip((1, 2), figure.plots()):
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
    import subprocess
    import sys

    code = """
import sys
from bokeh.document import Document
from posviz.compose.views import view
from posviz.figures import FIGURES
for name in ("topic-positional-encoding", "gallery"):
    view(name)[0].get_root(Document())
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
