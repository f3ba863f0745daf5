"""Figure 710 draws four distinct hands at every width its slider allows, and its
caption and plot title say four (issue 11: three were drawn at d_model = 16)."""

import holoviews as hv
import pytest

from posviz.drawing import plots
from posviz.figures import ClockHands
from posviz.maths import encoding

WORDS = {4: "four"}


def allowed_widths():
    low, high = ClockHands.param.d_model.bounds
    return range(low + low % 2, high + 1, 2)  # every even value a link may set


def test_four_distinct_hands_at_every_allowed_width():
    for d_model in allowed_widths():
        hands = encoding.hand_indices(d_model)
        assert len(hands) == len(set(hands)) == 4, (d_model, hands)
        assert hands == sorted(hands) and hands[0] == 0 and hands[-1] < d_model // 2


def test_smallest_width_used_to_repeat_a_hand():
    # round(1/16 · 8) = 0 collided with the first hand; now the next slower hand is taken.
    assert encoding.hand_indices(16) == [0, 1, 2, 3]


@pytest.mark.parametrize("d_model", [2, 4, 6])
def test_too_narrow_for_four_hands_gives_every_hand_once(d_model):
    assert encoding.hand_indices(d_model) == list(range(d_model // 2))


@pytest.mark.parametrize("d_model", [64, 128, 512, 1024])
def test_a_fraction_of_the_hands_turns_at_10000_to_minus_that_fraction(d_model):
    """The docstring's formula: i = fraction·d/2 gives ω_i = 10000^(−fraction)."""
    fractions = (0.0, 1 / 16, 1 / 8, 1 / 4)
    omegas = encoding.frequencies(d_model)[encoding.hand_indices(d_model, fractions)]
    assert omegas == pytest.approx([10000.0**-f for f in fractions])
    assert "10000^(−fraction)" in encoding.hand_indices.__doc__
    assert "−fraction·2" not in encoding.hand_indices.__doc__


@pytest.mark.parametrize("d_model", [16, 32, 128, 1024])
def test_figure_draws_as_many_hands_as_its_text_says(d_model):
    figure = ClockHands(d_model=d_model)
    drawn = hv.renderer("bokeh").get_plot(plots(figure)[0]).state
    curves = [r for r in drawn.renderers if (r.name or "").startswith("posviz-710-hand")]
    labels = [item.label.value for legend in drawn.legend for item in legend.items]
    assert len(curves) == len(set(labels)) == 4
    [marks] = [r for r in drawn.select({"name": "posviz-710-marks"})]
    marks = [r for r in drawn.renderers if getattr(r, "data_source", None) is marks][0]
    assert len(marks.data_source.data["value"]) == 4
    assert f"{WORDS[len(curves)]} hands" in drawn.title.text
    assert f"{WORDS[len(curves)]} hands" in figure.caption
