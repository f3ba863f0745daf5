"""Figure 96's bar labels: each in exactly one place, inside its bar only where the bar is
long, and readable there (WCAG 2's contrast rule, written out here)."""

import itertools

import pytest

from posviz.figures import ParameterBudget
from posviz.figures import parameter_budget as budget

EXTREMES = {name: ParameterBudget.param[name].bounds for name in budget.SIZES}
CORNERS = [
    dict(zip(EXTREMES, values, strict=True)) for values in itertools.product(*EXTREMES.values())
]


def relative_luminance(hex_colour: str) -> float:
    """WCAG 2.x: sRGB channels linearised, weighted 0.2126, 0.7152, 0.0722."""
    total = 0.0
    for weight, start in ((0.2126, 1), (0.7152, 3), (0.0722, 5)):
        c = int(hex_colour[start : start + 2], 16) / 255
        total += weight * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return total


def ratio(a: str, b: str) -> float:
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


@pytest.mark.parametrize(
    "sizes", [{}, *CORNERS], ids=lambda s: "-".join(map(str, s.values())) or "base"
)
def test_each_label_is_in_one_place_and_inside_only_a_long_bar(sizes):
    frame = ParameterBudget(**sizes).frame()
    lengths = frame["lengths"]["data"]["millions"]
    end = frame["bars"]["x_range.end"]
    assert end > max(lengths)  # the longest bar ends inside the plot
    past, inside = frame["labels"]["data"]["text"], frame["inside"]["data"]["text"]
    for length, out, within in zip(lengths, past, inside, strict=True):
        assert (out == "") != (within == ""), (out, within)
        shown = (out or within).strip()
        assert shown == (f"{length:.2f} M" if length < 1 else f"{length:.1f} M")
        assert bool(within) == (length >= 0.5 * end)


def test_a_label_inside_a_bar_reads_at_aa_contrast():
    """Every bar that ever holds its label (at any corner of the sliders) gets the text
    colour of higher contrast, and that reaches 4.5:1 (WCAG AA, text under 18 pt)."""
    roles = budget.ROLES[::-1]  # the frame's order: first at the bottom
    holding = set()
    for sizes in [{}, *CORNERS]:
        inside = ParameterBudget(**sizes).frame()["inside"]["data"]["text"]
        holding |= {role for role, text in zip(roles, inside, strict=True) if text}
    assert holding >= {"embedding", "encoder feed-forward", "decoder feed-forward"}
    for role in holding:
        bar = budget.COLOURS[budget.ROLES.index(role)]
        ink = budget.ink_on(bar)
        assert ratio(ink, bar) == max(ratio("#ffffff", bar), ratio(budget.INK, bar))
        assert ratio(ink, bar) >= 4.5, (role, bar, ink, round(ratio(ink, bar), 2))
