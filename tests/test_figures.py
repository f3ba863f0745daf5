"""Every figure: its sliders, its registry entry, and what it draws in Bokeh."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import holoviews as hv
import numpy as np
import panel as pn
import param
import pytest
from bokeh.models import GlyphRenderer

import posviz.figures
from posviz.drawing import plots
from posviz.drawing.controls import SnapBack
from posviz.figures import FIGURES, AttentionCost, ClockHands, Figure, ParameterBudget, QueryReach
from posviz.figures import attention_cost as cost
from posviz.figures import parameter_budget as budget
from posviz.figures import query_reach as reach
from posviz.figures.model import CAPTION_MIN_CHARS, EVERYTHING
from posviz.figures.parameter_budget import PRESETS
from posviz.maths import encoding
from tests.oracles import expected_values, lacks_oracle, oracle_for, rendered_sources
from tests.oracles.parameter_budget import budget_by_hand
from tests.support.imports import imported


def test_registry_holds_every_figure_class_of_the_package_by_its_id():
    modules = sorted(
        f"posviz.figures.{path.stem}"
        for path in Path(posviz.figures.__file__).parent.glob("*.py")
        if path.stem not in ("__init__", *posviz.figures.NOT_FIGURES)
    )
    defined = [
        cls
        for module in modules
        for cls in vars(importlib.import_module(module)).values()
        if isinstance(cls, type) and issubclass(cls, Figure) and cls.__module__ == module
    ]
    assert len(defined) == len(modules), "one figure class per module of posviz.figures"
    assert FIGURES == {cls.figure_id: cls for cls in defined}
    assert list(FIGURES) == sorted(FIGURES)
    for figure_id, cls in FIGURES.items():
        assert cls.figure_id == figure_id
        assert issubclass(cls, param.Parameterized)
        assert cls.title, f"{cls.__name__} has no title"
        assert getattr(posviz.figures, cls.__name__) is cls  # from posviz.figures import X


@pytest.mark.parametrize("cls", FIGURES.values(), ids=lambda cls: cls.__name__)
def test_every_island_room_has_a_box_per_control_and_plot_and_the_readout(cls):
    """The room a figure's island keeps before the draw: its layout as empty boxes
    (tests/ui/test_widths.py measures it against the drawn figure at every width)."""
    import re

    from posviz.drawing.controls import idle
    from posviz.drawing.layout import island_room

    figure = cls()
    room = island_room(figure, "<p>the readout</p>")
    controls, plots = room.split('class="posviz-room-plots"')
    shown = [name for name in figure.sliders() if name not in idle(figure)]
    assert controls.count("<i style=") == len(shown), room
    specs = figure.draw(hv, figure.frame())
    assert plots.count("<i style=") == len(specs), room
    assert "<p>the readout</p>" in room and 'aria-hidden="true"' in room
    # Taller plots take a taller box (a framed plot's aspect holds its height).
    taller = type(
        "Taller",
        (cls,),
        {
            "draw": lambda self, hv, frame: [
                type(spec)(
                    spec.key, spec.elements, **{**spec.options, "height": 900, "frame_height": 900}
                )
                for spec in cls.draw(self, hv, frame)
            ]
        },
    )
    bigger = island_room(taller(), "")
    assert re.findall(r"height: 900px|/ 930", bigger) and not re.findall(
        r"height: 900px|/ 930", room
    )


@pytest.mark.parametrize("cls", FIGURES.values(), ids=lambda cls: cls.__name__)
def test_every_caption_follows_the_caption_rule(cls):
    caption = " ".join(cls.caption.split())
    assert len(caption) >= CAPTION_MIN_CHARS, (
        f"caption rule: a caption says what to do and what to notice, in at least "
        f"{CAPTION_MIN_CHARS} characters; {cls.__name__}.caption has {len(caption)} "
        "(CONTRIBUTING.md, 'Rules a figure follows')"
    )


def test_ids_read_from_the_source_match_the_classes():
    assert posviz.figures.figure_ids() == set(FIGURES)


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
from posviz.drawing import plots
for cls in posviz.figures.FIGURES.values():  # every figure module imported, every plot drawn
    figure = cls()
    for plot in plots(figure):
        hv.render(plot)
after = defaults()
print(json.dumps([before == after, before, after]))
"""


@pytest.mark.slow  # a fresh Python
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
    for plot in plots(cls()):
        assert hv.render(plot).toolbar_location is None, (
            f"toolbar rule: {cls.__name__}'s plots pass **QUIET (overlays toolbar=None)"
        )
        elements = plot[()].traverse(
            lambda e: hv.Store.lookup_options("bokeh", e, "plot").kwargs.get("default_tools"),
            [hv.Curve, hv.Scatter, hv.Bars, hv.Image, hv.Labels],
        )
        assert elements and all(tools == [] for tools in elements), (
            f"toolbar rule: {cls.__name__}'s elements pass **QUIET in .opts(...)"
        )


@pytest.mark.parametrize("cls", FIGURES.values())
@pytest.mark.parametrize("sliders", ["defaults", "every slider moved"])
def test_every_plot_is_named_and_drawn_on_a_2d_canvas_not_webgl(cls, sliders):
    scratch, asked = cls(), {}
    if sliders != "defaults":
        for name in scratch.sliders():
            asked[name] = other_value(scratch, name)
            setattr(scratch, name, asked[name])
    figures = [hv.render(plot) for plot in plots(cls(**asked))]
    assert hv.renderer("bokeh").webgl  # HoloViews' default stays as it is
    assert all(figure.name.startswith(f"posviz-{cls.figure_id}-") for figure in figures), (
        f"naming rule: {cls.__name__}'s plots are named posviz-{cls.figure_id}-<what> "
        f"with name_plot, not {[figure.name for figure in figures]}"
    )
    assert [figure.output_backend for figure in figures] == ["canvas"] * len(figures)


@pytest.mark.parametrize("cls", FIGURES.values())
def test_no_line_glyph_is_drawn_in_an_ink_the_dark_theme_recolours(cls):
    """The dark theme recolours ink (compose/page_script.js) in the browser, and the live page
    sends the change back to Python, where a line's colour (a Bokeh Line: one colour, not a
    column) refuses the value BokehJS sends: the live figures then stop. Draw lines in the
    palette; spans, markers and text may use ink."""
    from bokeh.models import GlyphRenderer, Line

    from posviz.compose.page_script import LIGHT_INKS

    for plot in plots(cls()):
        for renderer in hv.render(plot).select(GlyphRenderer):
            if isinstance(renderer.glyph, Line):
                assert str(renderer.glyph.line_color).lower() not in LIGHT_INKS, (
                    f"{cls.__name__}: a curve drawn in {renderer.glyph.line_color}; use the palette"
                )


@pytest.mark.parametrize("cls", FIGURES.values())
def test_every_slider_is_documented_and_bounded(cls):
    figure = cls()
    for name in figure.sliders():
        parameter = figure.param[name]
        assert parameter.doc, f"slider rule: {cls.__name__}.{name} needs a doc"
        if isinstance(parameter, param.Number):
            assert None not in parameter.bounds, (
                f"slider rule: {cls.__name__}.{name} needs bounds (low, high), not "
                f"{parameter.bounds}"
            )


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
    bars = rendered_sources(plots(figure)[0])[0]
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
    hands_sources = rendered_sources(plots(figure)[0])
    sines = encoding.encoding(hands_sources[0]["position"], 64)[:, 0]
    np.testing.assert_allclose(hands_sources[0]["value"], sines)
    markers = hands_sources[-1]
    np.testing.assert_allclose(markers["position"], 30)
    idx = encoding.hand_indices(64)
    np.testing.assert_allclose(
        markers["value"], encoding.encoding([30], 64)[0][[2 * i for i in idx]]
    )

    before = rendered_sources(plots(figure)[1])
    figure.pos = 77
    after = rendered_sources(plots(figure)[1])
    for solid_or_dashed in (0, 1):
        np.testing.assert_allclose(
            before[solid_or_dashed]["PE(pos)·PE(pos+k)"],
            after[solid_or_dashed]["PE(pos)·PE(pos+k)"],
            atol=1e-9,
        )
    ks = after[0]["offset k"]
    np.testing.assert_allclose(after[0]["PE(pos)·PE(pos+k)"], encoding.dot_from_rows(77, ks, 64))
    np.testing.assert_allclose(after[1]["PE(pos)·PE(pos+k)"], encoding.dot_closed_form(ks, 64))


# --- 7256 -------------------------------------------------------------------


@pytest.mark.parametrize("k,m", [(7, 32), (1, 1), (32, 256), (8, 32)])
def test_cost_curves_are_log10_of_the_closed_forms(k, m):
    figure = AttentionCost(k=k, m=m)
    sources = rendered_sources(plots(figure)[0])[:3]
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
    for layers, plot in zip((1, 2), plots(figure), strict=True):
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


@pytest.mark.slow  # every view in a subprocess
def test_rendering_and_updating_every_view_never_imports_pandas():
    """The export ships no pandas: a figure that imported it would break there."""

    code = """
import os
os.environ["POSVIZ_EXPORT"] = "1"
from bokeh.document import Document
from posviz.compose.views import servable
from posviz.drawing import plots
from posviz.figures import FIGURES
for name in ("topic-positional-encoding", "gallery"):
    servable(name).server_doc(Document())  # the page: a template of named roots
for cls in FIGURES.values():
    figure = cls()
    roots = [__import__("holoviews").render(plot) for plot in plots(figure)]
    for name in figure.sliders():
        parameter = figure.param[name]
        if hasattr(parameter, "bounds") and parameter.bounds:
            setattr(figure, name, parameter.bounds[1])
"""
    assert imported(code, ("pandas", "dateutil", "pytz"))[0] == []


# --- every figure, every slider ---------------------------------------------------
#
# Each figure class in FIGURES is built with each slider at a value other than its
# default (one at a time, then all together), and both its values and the data it
# draws are checked against the maths, computed here from the values asked for.


def slider_values(figure) -> dict:
    return {name: getattr(figure, name) for name in figure.sliders()}


def other_value(figure, name):
    """A value the figure accepts for ``name``, other than its default, well away from it."""
    parameter = figure.param[name]
    default = parameter.default
    if isinstance(parameter, param.Selector):
        return next(choice for choice in parameter.objects if choice != default)
    low, high = parameter.bounds
    step = parameter.step or 1
    up, down = (high - default) // step, (default - low) // step
    candidates = [default + step * max(1, up // 2)] if up > 0 else []
    candidates += [default - step * max(1, down // 2)] if down > 0 else []
    candidates += [default + step, default - step, high, low]
    for value in candidates:
        if value != default and low <= value <= high:
            try:
                parameter._validate(value)
            except ValueError:
                continue
            return value
    raise AssertionError(f"no other value found for {type(figure).__name__}.{name}")


def assert_same(drawn: dict, expected: dict):
    assert drawn.keys() == expected.keys()
    for key in drawn:
        np.testing.assert_allclose(
            np.asarray(drawn[key], dtype=float),
            np.asarray(expected[key], dtype=float),
            rtol=1e-9,
            atol=1e-9,
            err_msg=key,
        )


def differs(a: dict, b: dict) -> bool:
    return a.keys() != b.keys() or any(
        np.shape(a[k]) != np.shape(b[k]) or not np.allclose(a[k], b[k], rtol=1e-9, atol=1e-9)
        for k in a
    )


def one_at_a_time():
    return [
        pytest.param(cls, name, id=f"{cls.__name__}.{name}")
        for cls in FIGURES.values()
        for name in cls().sliders()
    ]


# --- what each slider is for: Figure.invariant -------------------------------------


def same(a, b) -> bool:
    """Two frame elements (nested dicts, lists, arrays, numbers, text) hold the same values."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(same(a[k], b[k]) for k in a)
        )
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biuf" and b.dtype.kind in "biuf":
        return bool(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))
    return bool(np.array_equal(a, b))


def purpose_problems(declared, before: dict, after: dict) -> list[str]:
    """What breaks a slider's declared purpose, moving from frame ``before`` to ``after``.

    ``declared``: the frame elements it must leave, EVERYTHING, or () for a slider
    that must change what is drawn. Both directions: what it declares stays, and a
    slider that does not declare EVERYTHING changes something."""
    keys = list(before) if declared == EVERYTHING else list(declared)
    problems = [f"no frame element {key!r}" for key in keys if key not in before]
    problems += [
        f"{key!r} changed"
        for key in keys
        if key in before and not same(before[key], after.get(key))
    ]
    if declared != EVERYTHING and before.keys() == after.keys():
        if all(same(before[key], after[key]) for key in before):
            problems.append("nothing drawn changed")
    return problems


@pytest.mark.parametrize("cls,name", one_at_a_time())
def test_each_slider_does_what_its_figure_declares_it_is_for(cls, name):
    """Declared invariant ⇒ those elements unchanged; otherwise (and as well) ⇒ a change.

    A slider that only some choices use (``used_when``) is tried under such a choice."""
    assert set(cls.invariant) <= set(cls().sliders()), "invariant names a slider that is not one"
    start = {}
    if name in cls.used_when:
        choice, users = cls.used_when[name]
        start = {choice: users[0]}
    before = cls(**start).frame()
    for value in tried(cls(**start), name):
        after = cls(**start, **{name: value}).frame()
        problems = purpose_problems(cls.invariant.get(name, ()), before, after)
        assert problems == [], f"{cls.__name__}.{name} = {value!r}: {problems}"


def tried(figure, name) -> list:
    """Another value for the slider and, for a number, each end of its range."""
    values = [other_value(figure, name)]
    if not isinstance(figure.param[name], param.Selector):
        values += [end for end in figure.param[name].bounds if end != getattr(figure, name)]
    return list(dict.fromkeys(values))


def test_the_purpose_rule_fails_in_both_directions():
    """On frames made up here: each direction can fail, and passes only when it holds."""
    a = {"curve": {"data": {"y": np.arange(3.0)}}, "mark": {"location": 1}}
    moved = {**a, "mark": {"location": 2}}
    assert purpose_problems((), a, moved) == []
    assert purpose_problems((), a, a) == ["nothing drawn changed"]
    assert purpose_problems(("curve",), a, moved) == []
    assert purpose_problems(("mark",), a, moved) == ["'mark' changed"]
    assert purpose_problems(EVERYTHING, a, a) == []
    assert purpose_problems(EVERYTHING, a, moved) == ["'mark' changed"]
    assert purpose_problems(("lines",), a, moved) == ["no frame element 'lines'"]


def test_the_declared_purposes_are_the_ones_the_captions_explain():
    """710's pos leaves the dot product; RoPE's common shift leaves every score."""
    assert ClockHands.invariant == {"pos": ("rows", "closed", "dot")}
    assert set(FIGURES[2104].invariant["s"]) >= {"cells", "curve"}
    assert "does not move" in ClockHands.caption


@pytest.mark.slow  # renders each figure per slider
@pytest.mark.parametrize("cls,name", one_at_a_time())
def test_each_slider_at_another_value_is_kept_and_drawn(cls, name):
    value = other_value(cls(), name)
    figure = cls(**{name: value})
    assert getattr(figure, name) == value
    for plot in plots(figure):
        hv.render(plot)  # every figure: the value is kept and the plots draw
    oracle = oracle_for(cls)
    if oracle is None:
        pytest.fail(lacks_oracle(cls))
    values = expected_values(cls, {name: value})
    assert slider_values(figure) == values
    drawn, expected = oracle.drawn_and_expected(figure, values)
    assert_same(drawn, expected)
    # The slider changes what is drawn, so the check above could have failed; unless its
    # figure declares that it changes nothing drawn (Figure.invariant), and then it must not.
    _, at_defaults = oracle.drawn_and_expected(cls(), expected_values(cls, {}))
    if cls.invariant.get(name) == EVERYTHING:
        assert not differs(expected, at_defaults), f"{name} = {value} is declared to move nothing"
    else:
        assert differs(expected, at_defaults), f"{name} = {value} draws what the defaults draw"


@pytest.mark.slow  # renders each figure
@pytest.mark.parametrize("cls", FIGURES.values(), ids=lambda cls: cls.__name__)
def test_every_slider_at_another_value_at_once_is_kept_and_drawn(cls):
    # Chosen in declaration order on a live figure, so a bound that depends on an
    # earlier slider (QueryReach's row and column within the image side) is respected.
    scratch, asked = cls(), {}
    for name in scratch.sliders():
        asked[name] = other_value(scratch, name)
        setattr(scratch, name, asked[name])
    figure = cls(**asked)
    for plot in plots(figure):
        hv.render(plot)
    oracle = oracle_for(cls)
    if oracle is None:
        pytest.fail(lacks_oracle(cls))
    values = expected_values(cls, asked)
    assert slider_values(figure) == values
    assert all(getattr(figure, n) == v for n, v in asked.items() if n != "preset")
    drawn, expected = oracle.drawn_and_expected(figure, values)
    assert_same(drawn, expected)


# --- 96: explicit values win over the preset -------------------------------------------


def test_explicit_big_sizes_give_the_big_model_and_its_preset_name():
    figure = ParameterBudget(d_model=1024, d_ff=4096, n_layers=6, vocab_size=37000)
    assert sum(figure.counts().values()) == sum(budget.parameter_counts(**PRESETS["big"]).values())
    assert (
        sum(figure.counts().values())
        == budget_by_hand(1024, 4096, 6, 37000)["total"]
        == 214_245_376
    )
    assert figure.preset == "big"


def test_explicit_sizes_no_preset_has_are_custom():
    figure = ParameterBudget(d_model=1024)
    assert (figure.d_model, figure.d_ff, figure.preset) == (1024, 2048, "custom")
    assert sum(figure.counts().values()) == budget_by_hand(1024, 2048, 6, 37000)["total"]


@pytest.mark.parametrize(
    "asked,sizes,preset",
    [
        ({"preset": "big"}, PRESETS["big"], "big"),
        ({"preset": "base"}, PRESETS["base"], "base"),
        # Sizes given with a preset win over it; the rest come from the preset.
        ({"preset": "big", "d_model": 512}, {**PRESETS["big"], "d_model": 512}, "custom"),
        ({"preset": "base", "d_model": 1024, "d_ff": 4096}, PRESETS["big"], "big"),
        ({"preset": "big", **PRESETS["base"]}, PRESETS["base"], "base"),
        # "custom" alone names no sizes: the defaults, which are base.
        ({"preset": "custom"}, PRESETS["base"], "base"),
    ],
)
def test_a_preset_with_explicit_sizes_takes_the_sizes(asked, sizes, preset):
    figure = ParameterBudget(**asked)
    assert {name: getattr(figure, name) for name in sizes} == sizes
    assert figure.preset == preset


def test_an_unknown_preset_is_refused_by_name():
    with pytest.raises(ValueError, match="'ParameterBudget.preset' does not accept 'huge'"):
        ParameterBudget(preset="huge")


def test_choosing_a_preset_after_explicit_sizes_still_moves_them():
    figure = ParameterBudget(d_model=640)
    figure.preset = "big"
    assert slider_values(figure) == {"preset": "big", **PRESETS["big"]}


# --- a value the figure refuses from the browser snaps back ---------------------------


def browser_widgets(figure):
    """(name, widget, its Bokeh model, the model's value property) of each control."""
    from bokeh.document import Document

    layout = figure.__panel__()
    root = layout.get_root(Document())
    [controls] = layout.select(pn.Param)
    for name in figure.sliders():
        widget = controls._widgets[name]
        # Made by figures.controls.widgets_for: a layout that builds its own pn.Param
        # must pass widgets_for(figure) and wrap it in steady(..., figure).
        assert isinstance(widget, SnapBack), f"{name}: not a snap-back widget"
        model = widget._models[root.ref["id"]][0]
        yield name, widget, model, "active" if hasattr(model, "active") else "value"


def shown(widget, model, prop):
    """The figure value the browser's model shows."""
    value = getattr(model, prop)
    if prop == "active":
        return list(widget.values)[value]
    if hasattr(widget, "labels"):  # a Select shows labels
        return dict(zip(widget.labels, widget.values, strict=True)).get(value, value)
    return value


def as_sent(widget, prop, value):
    """What the browser sends for the figure value ``value``."""
    if prop == "active":
        return list(widget.values).index(value)
    if hasattr(widget, "labels"):
        return widget.labels[list(widget.values).index(value)]
    return value


def refused_values(figure, name, prop):
    if prop == "active":
        return [99, -1, None]
    parameter = figure.param[name]
    if isinstance(parameter, param.Selector):
        return ["no such option", "", None]
    low, high = parameter.bounds
    refused = [float("nan"), float("inf"), float("-inf"), high + 10**6, low - 10**6]
    try:
        parameter._validate(parameter.default + 1)
    except ValueError:
        refused.append(parameter.default + 1)  # inside the bounds, refused (an odd d_model)
    return refused


@pytest.mark.parametrize("cls", FIGURES.values(), ids=lambda cls: cls.__name__)
def test_a_value_the_figure_refuses_from_the_browser_snaps_back(cls, caplog):
    figure = cls()
    for name, widget, model, prop in browser_widgets(figure):
        for bad in refused_values(figure, name, prop):
            before = getattr(figure, name)
            try:
                setattr(model, prop, bad)  # what a websocket message does
            except ValueError as error:
                # Bokeh's own property validation refused it before any widget saw it.
                assert "failed to validate" in str(error)
            assert getattr(figure, name) == before
            assert widget.value == before, f"{name}: widget shows {widget.value!r} for {bad!r}"
            assert shown(widget, model, prop) == before, f"{name}: browser shows {bad!r}"
        # A good value still moves the figure.
        good = other_value(figure, name)
        setattr(model, prop, as_sent(widget, prop, good))
        assert getattr(figure, name) == widget.value == good
    assert "Traceback" not in caplog.text


def test_choosing_custom_while_the_sizes_are_a_preset_keeps_the_preset_name():
    figure = ParameterBudget()
    figure.preset = "custom"
    assert slider_values(figure) == {"preset": "base", **PRESETS["base"]}
    figure.d_model = 640
    figure.preset = "custom"
    assert (figure.preset, figure.d_model) == ("custom", 640)


@pytest.mark.parametrize(
    "asked,name",
    [({"side": 10, "row": 12}, "row"), ({"col": 16}, "col"), ({"side": 8, "col": 8}, "col")],
)
def test_a_query_asked_for_outside_the_image_is_refused_not_moved(asked, name):
    side = asked.get("side", 16)
    with pytest.raises(ValueError, match=f"{name} {asked[name]} is outside a {side}×{side} image"):
        QueryReach(**asked)
    # Inside it is kept; a default query is still pulled inside a small image.
    assert getattr(QueryReach(**{**asked, name: side - 1}), name) == side - 1
    assert (QueryReach(side=8).row, QueryReach(side=8).col) == (7, 7)


# --- slider steps update the drawn plots in place --------------------------------

STEPS = {
    96: [("d_model", 1024), ("n_layers", 3), ("preset", "big"), ("vocab_size", 5000)],
    710: [("pos", 13), ("pos", 77), ("d_model", 64), ("pos", 0), ("d_model", 1024), ("pos", 100)],
    7256: [("k", 8), ("m", 1), ("k", 32), ("m", 256), ("k", 1)],
    4121: [
        ("row", 9),
        ("col", 0),
        ("scheme", "axial"),
        ("side", 10),
        ("row", 2),
        ("scheme", "block-2d"),
        ("memory_above", 0),
        ("side", 40),
        ("col", 39),
    ],
}


def glyphs_of(item):
    """A legend entry's glyphs' y values, rounded: which curve the entry names."""
    return [
        np.round(np.asarray(r.data_source.data[r.glyph.y]), 6).tolist()
        for r in item.renderers
        if r.visible
    ]


def drawn_state(figures):
    """Per named Bokeh figure: its title, ranges and every glyph's data, comparable."""
    from bokeh.models import Plot, Range1d, Span

    state = {}
    for fig in figures:
        glyphs = []
        for r in fig.renderers:
            if not r.visible:  # HoloViews hides a subplot whose overlay key went away
                continue
            if isinstance(r, GlyphRenderer):
                glyphs.append(
                    {key: np.asarray(value).tolist() for key, value in r.data_source.data.items()}
                )
            elif isinstance(r, Span):
                glyphs.append({"span": r.location})
        ranges = [
            (rng.start, rng.end) if isinstance(rng, Range1d) else tuple(rng.factors)
            for rng in (fig.x_range, fig.y_range)
        ]
        assert isinstance(fig, Plot)
        # HoloViews appends the renderers of new overlay keys: compare regardless of order.
        glyphs.sort(key=lambda glyph: json.dumps(glyph, sort_keys=True, default=str))
        # Each entry once: a plot's key (drawing.layout.narrow_key) holds its legend's own.
        entries = {item.id: item for legend in fig.legend for item in legend.items}
        legend = [
            (item.label.value, json.dumps(glyphs_of(item), sort_keys=True, default=str))
            for item in entries.values()
            if any(r.visible for r in item.renderers)
        ]
        state[fig.name] = {
            "title": fig.title.text,
            "ranges": ranges,
            "glyphs": glyphs,
            "legend": sorted(legend),
        }
    return state


def steps_of(figure) -> list[tuple[str, object]]:
    """The steps above for the seed's figures; for any other, each slider away and back."""
    if figure.figure_id in STEPS:
        return STEPS[figure.figure_id]
    return [
        step
        for name in figure.sliders()
        for step in ((name, other_value(figure, name)), (name, figure.param[name].default))
    ]


@pytest.mark.slow  # renders each figure at every step
@pytest.mark.parametrize("figure_id", list(FIGURES))
def test_a_live_view_stepped_by_its_sliders_draws_what_a_fresh_render_draws(figure_id):
    """In-place updates (data-only steps) leave the page as a full redraw would."""
    import panel as pn
    from bokeh.document import Document
    from bokeh.models import Plot

    figure = FIGURES[figure_id]()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))

    def named(figs):
        return [f for f in figs if (f.name or "").startswith("posviz-")]

    for name, value in steps_of(figure):
        setattr(figure, name, value)
        live = drawn_state(named(doc.select({"type": Plot})))
        fresh = drawn_state(named(hv.render(plot) for plot in plots(figure)))
        assert live.keys() == fresh.keys() and live
        for key in fresh:
            assert live[key]["title"] == fresh[key]["title"], (name, value, key)
            assert live[key]["legend"] == fresh[key]["legend"], (name, value, key)
            for got, want in zip(live[key]["ranges"], fresh[key]["ranges"], strict=True):
                assert got == pytest.approx(want, abs=1e-9), (name, value, key)
            assert len(live[key]["glyphs"]) == len(fresh[key]["glyphs"])
            for got, want in zip(live[key]["glyphs"], fresh[key]["glyphs"], strict=True):
                assert got.keys() == want.keys(), (name, value, key)
                for column in want:
                    if np.asarray(want[column]).dtype.kind in "fiu":
                        np.testing.assert_allclose(
                            np.asarray(got[column], dtype=float),
                            np.asarray(want[column], dtype=float),
                            atol=1e-9,
                            err_msg=f"{name}={value} {key} {column}",
                        )
                    else:
                        assert got[column] == want[column], (name, value, key, column)
