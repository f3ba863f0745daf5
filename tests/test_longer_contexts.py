"""Figure 2306 (RoPE at longer lengths): plain, PI and NTK-aware angles, computed here apart."""

import math

import pytest

from posviz.figures import LongerContexts
from posviz.figures import longer_contexts as longer


def thetas(d: int, base: float) -> list[float]:
    """θ_i = base^(−2i/d), i = 0..d/2 − 1, one by one."""
    return [base ** (-2 * i / d) for i in range(d // 2)]


@pytest.mark.parametrize("d", [16, 64, 128, 256])
@pytest.mark.parametrize("base", [10_000, 1_000_000])
@pytest.mark.parametrize("s", [1, 2, 4, 128])
def test_ntk_base_keeps_the_fastest_pair_and_slows_the_slowest_s_fold(d, base, s):
    """base' = base·s^(d/(d−2)): θ'_0 = θ_0 = 1, θ'_(d/2−1) = θ_(d/2−1)/s, and between them
    θ'_i/θ_i = s^(−2i/(d−2)), falling steadily from 1 to 1/s."""
    new_base = base * s ** (d / (d - 2))
    assert longer.ntk_base(d, base, s) == pytest.approx(new_base, rel=1e-12)
    old, new = thetas(d, base), thetas(d, new_base)
    step = longer.steps(d, base, s)["ntk"]
    assert list(step) == pytest.approx(new, rel=1e-12)
    assert new[0] == old[0] == 1
    assert new[-1] == pytest.approx(old[-1] / s, rel=1e-12)
    ratios = [n / o for n, o in zip(new, old, strict=True)]
    assert ratios == pytest.approx([s ** (-2 * i / (d - 2)) for i in range(d // 2)], rel=1e-12)
    assert all(b <= a for a, b in zip(ratios, ratios[1:], strict=False))


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"d": 64, "train_length": 512, "length": 65536, "base": 1_000_000},
        {"d": 16, "train_length": 4096, "length": 4096},
        {"d": 256, "train_length": 1024, "length": 16384, "base": 100_000},
    ],
)
def test_reach_ratios_per_method(values):
    """Trained: L_train·θ_i. Plain: L·θ_i. PI: L·(L_train/L)·θ_i. NTK: L·θ'_i."""
    figure = LongerContexts(**values)
    d, base, trained, length = figure.d, figure.base, figure.train_length, figure.length
    s = length / trained
    reach, step = figure.ratios()
    old, new = thetas(d, base), thetas(d, base * s ** (d / (d - 2)))
    assert list(reach["plain"]) == pytest.approx([length * t / (trained * t) for t in old])
    assert list(reach["plain"]) == pytest.approx([s] * (d // 2))
    assert list(reach["pi"]) == pytest.approx([1.0] * (d // 2))  # never past training
    assert list(reach["ntk"]) == pytest.approx(
        [length * n / (trained * o) for n, o in zip(new, old, strict=True)]
    )
    assert list(step["pi"]) == pytest.approx([1 / s] * (d // 2))  # neighbours s times closer
    assert list(step["plain"]) == pytest.approx([1.0] * (d // 2))


def test_the_defaults_in_numbers():
    """d = 128, base 10⁴, 2,048 → 8,192 (s = 4): pairs 0–40 turn a full circle in 2,048
    positions (2,048·10⁴^(−80/128) ≈ 6.48 > 2π), pair 41 does not (≈ 5.61 < 2π)."""
    figure = LongerContexts()
    theta = thetas(128, 10_000)
    assert 2048 * theta[40] > 2 * math.pi > 2048 * theta[41]
    assert figure.never_turned().tolist() == list(range(41, 64))
    over = figure.overshoot()
    assert over["plain"] == pytest.approx(4) and over["pi"] == pytest.approx(1)
    assert over["ntk"] == pytest.approx(4 ** (1 - 2 * 41 / 126))  # at pair 41, the first slow one
    text = figure.readout()
    for piece in (
        "**4**",
        "pairs 0–40 turned a full circle in training, pairs 41–63 never did",
        "plain **×4.00**, PI **×1.00**, NTK **×1.62**",
        f"NTK base {10_000 * 4 ** (128 / 126):,.0f}",
        "PI **0.25**",
        "on the slowest: NTK **0.25**",
    ):
        assert piece in text, piece
    assert "40,890" in text


def test_the_dotted_line_sits_where_a_pair_makes_one_turn_in_training():
    for values in ({}, {"base": 1_000_000, "train_length": 512, "d": 64}):
        figure = LongerContexts(**values)
        line = figure.frame()["turned_reach"]["location"]
        angle = figure.train_length * figure.base ** (-2 * line / figure.d)
        assert angle == pytest.approx(2 * math.pi)
        slow = [
            i
            for i, t in enumerate(thetas(figure.d, figure.base))
            if figure.train_length * t < 2 * math.pi
        ]
        assert figure.never_turned().tolist() == slow and slow[0] > line > slow[0] - 1


def test_a_larger_base_leaves_more_pairs_short_of_a_turn():
    counts = [LongerContexts(base=b).never_turned().size for b in (10_000, 100_000, 1_000_000)]
    assert counts[0] < counts[1] < counts[2]


def test_no_extension_leaves_the_three_methods_alike():
    figure = LongerContexts(train_length=4096, length=4096)
    reach, step = figure.ratios()
    for method in ("plain", "pi", "ntk"):
        assert list(reach[method]) == pytest.approx([1.0] * 64)
        assert list(step[method]) == pytest.approx([1.0] * 64)


def test_the_table_samples_every_eighth_pair_and_the_last():
    caption, columns, rows = LongerContexts().table()
    assert [row[0] for row in rows] == [0, 8, 16, 24, 32, 40, 48, 56, 63]
    assert rows[0][1] == f"{2 * math.pi:,.1f}"  # pair 0 turns once every 2π positions
    assert rows[-1][3:] == ("4.000", "1.000", "1.000")
    assert "8,192" in caption and len(columns) == 6


def test_lengths_and_bases_are_named_choices():
    assert LongerContexts.param.length.names["64K"] == 65536
    assert LongerContexts.param.train_length.names["2K"] == 2048
    assert LongerContexts.param.base.names == {"10⁴": 10_000, "10⁵": 100_000, "10⁶": 1_000_000}


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"train_length": 512, "length": 65536},  # s = 128, the widest ranges
        {"train_length": 4096, "length": 4096},  # s = 1, the narrowest
    ],
)
def test_each_panel_is_labelled_at_powers_of_two_that_cover_its_curves(values):
    """Every panel shows between two and ten ticks inside its range, each a power of two
    labelled as its value (read back as a fraction here), and its curves' values lie within
    one tick step (×2) of the outermost ticks shown."""
    import holoviews as hv

    hv.extension("bokeh", logo=False)
    figure = LongerContexts(**values)
    frame = figure.frame()
    for spec in figure.draw(hv, frame):
        low, high = frame[spec.key]["y_range.start"], frame[spec.key]["y_range.end"]
        shown = [(v, text) for v, text in spec.options["yticks"] if low <= v <= high]
        assert 2 <= len(shown) <= 10, (spec.key, low, high, shown)
        for value, text in shown:
            top, _, bottom = text.partition("/")
            assert int(top) / int(bottom or 1) == value
            assert math.log2(value) == round(math.log2(value))
        ticks = [v for v, _ in shown]
        curves = [
            y
            for m in longer.METHODS
            for y in frame[f"{m}_{spec.key}"]["data"][
                longer.REACH if spec.key == "reach" else longer.STEP
            ]
        ]
        assert min(ticks) / 2 <= min(curves) and max(curves) <= max(ticks) * 2
