"""Figure 2306 — Stretching rotary positions to longer contexts.

RoPE turns pair i (dimensions 2i, 2i + 1 of a head of width d) by the angle
p·θ_i at position p, θ_i = base^(−2i/d), i = 0..d/2 − 1. A model trained on
sequences of up to L_train tokens met angles up to L_train·θ_i on pair i
(positions taken over [0, L_train), as Chen et al. (2023) do). At a test
length L, with s = L / L_train:

* plain RoPE reaches L·θ_i: every pair goes s times past its trained angle;
* position interpolation (PI, Chen et al., 2023) scales positions by
  L_train / L, so the angles stay within L_train·θ_i, and the angle between
  neighbouring positions shrinks s-fold on every pair;
* the "NTK-aware" change (bloc97, 2023, a Reddit post, written out by Peng et
  al., 2023) raises the base to base·s^(d/(d−2)): θ'_i = θ_i·s^(−2i/(d−2)),
  so pair 0 keeps its speed, the slowest pair (i = d/2 − 1) is slowed
  exactly s-fold, and the pairs between by s to a power in between.

A pair whose trained angles already went round a full turn (L_train·θ_i ≥ 2π)
has met every angle of its circle; only a pair that never completed a turn
meets angles it has never seen when its largest angle grows.
"""

import math

import numpy as np
import param

from posviz.figures.model import INK, PALETTE, EvenSlider, Figure, Plot

METHODS = ("plain", "pi", "ntk")
NAMES = {"plain": "plain RoPE", "pi": "PI", "ntk": "NTK-aware"}
COLOURS = {"plain": PALETTE[3], "pi": PALETTE[0], "ntk": PALETTE[2]}
REACH = "largest angle ÷ trained"
STEP = "neighbour step ÷ trained"
BASES = {"10⁴": 10_000, "10⁵": 100_000, "10⁶": 1_000_000}
# A ratio this close to 1 is 1: floating-point rounding, not an overshoot.
ROUNDING = 1e-9
# Both panels' ratios are powers of two apart (s = L / L_train is one): ticks at 1/256 … 256,
# the ones inside the range shown. A log axis's own ticks crowd within a decade (5, 6, 7, 8
# at the top of one panel) and left the right panel's 1/4 unlabelled.
TICKS = [(2.0**k, f"1/{2**-k}" if k < 0 else f"{2**k}") for k in range(-8, 9)]


def frequencies(d: int, base: float) -> np.ndarray:
    """θ_i = base^(−2i/d) for the d/2 pairs, fastest (θ_0 = 1) first."""
    return base ** (-2.0 * np.arange(d // 2) / d)


def ntk_base(d: int, base: float, scale: float) -> float:
    """The NTK-aware base: base·s^(d/(d−2))."""
    return base * scale ** (d / (d - 2))


def steps(d: int, base: float, scale: float) -> dict[str, np.ndarray]:
    """Per method, the angle each pair turns between neighbouring positions at the test length."""
    theta = frequencies(d, base)
    return {
        "plain": theta,
        "pi": theta / scale,  # positions scaled by L_train / L
        "ntk": frequencies(d, ntk_base(d, base, scale)),
    }


def turned(d: int, base: float, train_length: int) -> float:
    """The pair index i* where L_train·θ_i = 2π: pairs below it turned a full circle in training."""
    return (d / 2) * math.log(train_length / (2 * math.pi)) / math.log(base)


def label_of(base: int) -> str:
    """The button label of a base."""
    return next(name for name, value in BASES.items() if value == base)


class LongerContexts(Figure):
    """Per rotation pair: how far plain RoPE, PI and NTK-aware scaling reach at a longer length."""

    figure_id = 2306
    title = "Stretching rotary positions to longer contexts"
    caption = (
        "Pick a test length longer than the training length and read the left panel: for "
        "every rotation pair, the largest angle the longer context reaches divided by the "
        "largest angle the model met in training, on a log scale. Plain RoPE lies above the "
        "line at one on every pair. Position interpolation (PI) lies on it, since it squeezes "
        "the positions back into the trained range. The NTK-aware change of base starts where "
        "plain RoPE does on the fast pairs and comes down to the line on the slowest. The right "
        "panel shows the price: the angle between neighbouring positions, relative to "
        "training. PI shrinks it on every pair, so neighbours get closer; NTK keeps the fast "
        "pairs as they were and slows only the slow ones. Left of the dotted line, pairs had "
        "already turned a full circle in training, so going past their largest angle shows "
        "them nothing new; right of it, any overshoot is an angle the model never met. A "
        "larger base moves that line left."
    )
    widgets = {"train_length": "buttons", "length": "buttons", "base": "buttons"}

    d = EvenSlider(
        default=128,
        bounds=(16, 256),
        step=16,
        label="head width d",
        doc="Width of a head, d: RoPE turns d/2 pairs.",
    )
    train_length = param.Selector(
        default=2048,
        objects={"512": 512, "1K": 1024, "2K": 2048, "4K": 4096},
        label="training length L_train",
        doc="Longest training sequence, L_train (K = 1,024 tokens).",
    )
    length = param.Selector(
        default=8192,
        objects={"4K": 4096, "8K": 8192, "16K": 16384, "32K": 32768, "64K": 65536},
        label="test length L",
        doc="Length of the test sequence, L (K = 1,024 tokens).",
    )
    base = param.Selector(
        default=10_000, objects=BASES, label="base", doc="RoPE's base: θ_i = base^(−2i/d)."
    )

    def scale(self) -> float:
        """The extension factor s = L / L_train."""
        return self.length / self.train_length

    def ratios(self) -> tuple[dict, dict]:
        """Per method: largest angle at L over the trained one, and neighbour step over trained."""
        theta = frequencies(self.d, self.base)
        step = steps(self.d, self.base, self.scale())
        trained = self.train_length * theta
        reach = {m: self.length * step[m] / trained for m in METHODS}
        return reach, {m: step[m] / theta for m in METHODS}

    def never_turned(self) -> np.ndarray:
        """Indices of the pairs whose trained angles stayed under a full turn."""
        return np.flatnonzero(self.train_length * frequencies(self.d, self.base) < 2 * math.pi)

    def overshoot(self) -> dict[str, float]:
        """Per method, the largest reach ratio among pairs that never turned (1: none past)."""
        reach, _ = self.ratios()
        slow = self.never_turned()
        return {m: float(reach[m][slow].max()) if slow.size else 1.0 for m in METHODS}

    def frame(self):
        """Both panels' curves, the full-turn line on each, their titles and ranges."""
        reach, step = self.ratios()
        pairs = np.arange(self.d // 2)
        s, line = self.scale(), turned(self.d, self.base, self.train_length)
        result = {}
        for m in METHODS:
            result[f"{m}_reach"] = {"data": {"pair i": pairs, REACH: reach[m]}}
            result[f"{m}_step"] = {"data": {"pair i": pairs, STEP: step[m]}}
        result["turned_reach"] = {"location": line}
        result["turned_step"] = {"location": line}
        ends = {"x_range.start": -0.5, "x_range.end": self.d / 2 - 0.5}
        result["reach"] = {
            "title.text": f"Largest angle ÷ trained: L / L_train = {s:g}",
            **ends,
            "y_range.start": 0.7,
            "y_range.end": 2.0 * s,
        }
        result["step"] = {
            "title.text": f"Neighbour step ÷ trained: base {label_of(self.base)}",
            **ends,
            "y_range.start": 0.7 / s,
            "y_range.end": 2.0,
        }
        return result

    def draw(self, hv, frame):
        """Reach ratios (left) and neighbour-step ratios (right), per pair, log scale."""
        specs = []
        for key, column in (("reach", REACH), ("step", STEP)):
            curves = {
                f"{m}_{key}": hv.Curve(
                    (frame[f"{m}_{key}"]["data"]["pair i"], frame[f"{m}_{key}"]["data"][column]),
                    "pair i",
                    column,
                    label=NAMES[m],
                ).opts(
                    color=COLOURS[m],
                    line_width=4 if m == "pi" else 2.5,
                    line_dash="dashed" if m == "plain" else "solid",
                )
                for m in METHODS
            }
            lines = {
                f"one_{key}": hv.HLine(1.0).opts(color="#999999", line_width=1),
                f"turned_{key}": hv.VLine(frame[f"turned_{key}"]["location"]).opts(
                    color=INK, line_dash="dotted"
                ),
            }
            # One legend, outside the left panel: no position inside is clear of every curve.
            legend = {"legend_position": "right"} if key == "reach" else {"show_legend": False}
            specs.append(
                Plot(
                    key,
                    {**curves, **lines},
                    width=520 if key == "reach" else 380,
                    height=320,
                    logy=True,
                    yticks=TICKS,
                    show_grid=True,
                    **legend,
                )
            )
        return specs

    def readout(self):
        """s, the split of pairs at a full turn, the overshoots and the fastest pair's steps."""
        s, slow, over = self.scale(), self.never_turned(), self.overshoot()
        half = self.d // 2
        split = (
            f"pairs 0–{slow[0] - 1} turned a full circle in training, "
            f"pairs {slow[0]}–{half - 1} never did"
            if slow.size and slow[0] > 0
            else f"none of the {half} pairs turned a full circle in training"
            if slow.size
            else f"all {half} pairs turned a full circle in training"
        )
        _, step = self.ratios()
        return (
            f"s = L / L_train = **{s:g}** · d = **{self.d}** ({half} pairs) · base "
            f"**{label_of(self.base)}**: {split}  \n"
            f"Largest angle at L ÷ in training, on the pairs that never turned: plain "
            f"**×{over['plain']:.2f}**, PI **×{over['pi']:.2f}**, NTK **×{over['ntk']:.2f}** "
            f"(NTK base {ntk_base(self.d, self.base, s):,.0f})  \n"
            f"Angle between neighbours on the fastest pair, ÷ trained: plain "
            f"**{step['plain'][0]:.2f}**, PI **{step['pi'][0]:.3g}**, NTK "
            f"**{step['ntk'][0]:.2f}**; on the slowest: NTK **{step['ntk'][-1]:.3g}**"
        )

    def describe(self):
        """What the three curves do at these values."""
        s, over = self.scale(), self.overshoot()
        _, step = self.ratios()
        return (
            f"For {self.d // 2} rotation pairs (d = {self.d}, base {self.base:,}), trained on "
            f"{self.train_length:,} tokens and tested on {self.length:,} (s = {s:g}): plain "
            f"RoPE reaches {s:g} times its trained angles on every pair, PI exactly its trained "
            f"angles with steps {1 / s:.3g} times as large, and NTK-aware scaling keeps the "
            f"fastest pair's step and slows the slowest {1 / step['ntk'][-1]:.3g}-fold; on the "
            f"{self.never_turned().size} pairs that never turned a full circle in training the "
            f"largest overshoot is {over['plain']:.2f} (plain), {over['pi']:.2f} (PI) and "
            f"{over['ntk']:.2f} (NTK)."
        )

    def table(self):
        """Every eighth of the pairs: period, turns in training and each method's reach."""
        reach, _ = self.ratios()
        theta = frequencies(self.d, self.base)
        half = self.d // 2
        shown = sorted({*range(0, half, max(1, half // 8)), half - 1})
        rows = [
            (
                int(i),
                f"{2 * math.pi / theta[i]:,.1f}",
                f"{self.train_length * theta[i] / (2 * math.pi):,.3g}",
                *(f"{reach[m][i]:.3f}" for m in METHODS),
            )
            for i in shown
        ]
        return (
            f"Per pair: largest angle at L = {self.length:,} ÷ at L_train = {self.train_length:,}",
            ["pair i", "period (positions)", "turns in training", "plain", "PI", "NTK"],
            rows,
        )
