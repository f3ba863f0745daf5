"""A plot's key: the entries of a legend inside its plot area, under the plot, for the
widths where that legend would cover the data (``drawing.layout.narrow_key``).

What the browser shows at each width is tests/ui/test_widths.py's (no legend inside a
plot area covers a point, and every plot shows its legend); here, the models the key is
made of, in every figure, and that a slider step relabels it.
"""

import functools

import holoviews as hv
import pytest
from bokeh.models import Legend

from posviz.drawing import plots
from posviz.drawing.layout import INSIDE_CLASS, KEY_CLASS, plot_pane
from posviz.figures import FIGURES


def drawn_pane(plot):
    """The Bokeh plot the site draws for ``plot``: through its pane's options and hooks."""
    return hv.renderer("bokeh").get_plot(plot_pane(plot).object).state


def legends(state) -> dict[str, list]:
    """The plot's legends by where they stand: inside the plot area, or in a side panel."""
    where = {"inside": state.center}
    where.update({side: getattr(state, side) for side in ("above", "below", "left", "right")})
    return {
        side: [model for model in models if isinstance(model, Legend)]
        for side, models in where.items()
    }


@functools.cache
def drawn_figure(figure_id: int) -> tuple:
    """Each plot the site draws for the figure at its defaults, drawn once for the module."""
    return tuple(drawn_pane(plot) for plot in plots(FIGURES[figure_id]()))


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_legend_inside_the_plot_area_has_one_key_of_the_same_entries(figure_id):
    for state in drawn_figure(figure_id):
        found = legends(state)
        keys = [legend for legend in found["below"] if KEY_CLASS in legend.css_classes]
        inside = [legend for legend in found["inside"] if legend.items]  # HoloViews keeps
        # an empty one in a plot told not to show its legend
        if not inside:  # no legend, or one in a side panel: nothing to cover, no key
            assert keys == []
            for side in found.values():
                assert all(INSIDE_CLASS not in legend.css_classes for legend in side)
            continue
        [legend] = inside
        [key] = keys
        assert INSIDE_CLASS in legend.css_classes and KEY_CLASS not in legend.css_classes
        assert len(key.items) == len(legend.items) > 0
        assert all(a is b for a, b in zip(key.items, legend.items, strict=True))  # the same
        assert key.orientation == "horizontal"
        assert state.frame_align == {"bottom": False}


def test_the_figures_whose_legends_covered_data_have_keys():
    """The figures whose plots have a legend inside their area: those the widths test
    found covering data at phone widths before the key (710, 1803, 2104, 7256)."""
    keyed = {
        fid
        for fid in FIGURES
        for state in drawn_figure(fid)
        if any(KEY_CLASS in m.css_classes for m in state.below)
    }
    assert {710, 1803, 2104, 7256} <= keyed


def test_a_slider_step_relabels_the_key():
    figure = FIGURES[710]()
    hands = plots(figure)[0]
    state = drawn_pane(hands)
    [key] = [m for m in state.below if KEY_CLASS in m.css_classes]
    before = [item.label.value for item in key.items]
    figure.d_model = 512  # other hands, other periods: the frame names new labels
    frame = figure.frame()
    after = [item.label.value for item in key.items]
    wanted = [frame[item.name.removeprefix("posviz-710-")]["label"] for item in key.items]
    assert after == wanted
    assert after != before
