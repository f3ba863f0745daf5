"""Figure 96: the parameter count by role, against the paper's rules written out by hand."""

from posviz.drawing import plots
from posviz.figures import parameter_budget as budget
from posviz.figures.parameter_budget import PRESETS
from tests.oracles import rendered_sources

SIZES = ("d_model", "d_ff", "n_layers", "vocab_size")

# The size each plot is designed at (layout test): width is a cap, height is kept.
PLOT_SIZES = [(520, 300)]


def expected_values(cls, asked: dict) -> dict:
    """Sizes given win; the rest come from the preset named, else the defaults; the
    preset is then the one the sizes match, or custom."""
    values = {name: cls.param[name].default for name in cls().sliders()} | asked
    chosen = PRESETS.get(asked.get("preset"), PRESETS["base"])
    for name in SIZES:
        values[name] = asked.get(name, chosen[name])
    now = {name: values[name] for name in SIZES}
    values["preset"] = next((n for n, s in PRESETS.items() if s == now), "custom")
    return values


def budget_by_hand(d, f, n, v) -> dict:
    """Figure 96's totals from the paper's rules, written out independently of maths."""
    attention, feed_forward, norm = 4 * (d * d + d), 2 * d * f + f + d, 2 * d
    return {
        "embedding": v * d,
        "attention": 3 * n * attention,
        "feed-forward": 2 * n * feed_forward,
        "layer norm": 5 * n * norm,
        "total": v * d + n * (3 * attention + 2 * feed_forward + 5 * norm),
    }


def drawn_and_expected(figure, values: dict):
    """The bars in millions and the total, against the hand count."""
    bars = rendered_sources(plots(figure)[0])[0]
    drawn = dict(zip(bars["role"], bars["millions"], strict=True))
    drawn["total"] = sum(figure.counts().values()) / 1e6
    sizes = [values[n] for n in SIZES]
    by_hand = budget_by_hand(*sizes)
    counts = budget.parameter_counts(*sizes)
    expected = {role: count / 1e6 for role, count in counts.items()}
    expected["total"] = by_hand["total"] / 1e6
    # The maths module and the hand count agree, role group by role group.
    assert counts["embedding"] == by_hand["embedding"]
    assert sum(v for r, v in counts.items() if "attention" in r) == by_hand["attention"]
    assert sum(v for r, v in counts.items() if "feed-forward" in r) == by_hand["feed-forward"]
    return drawn, expected
