"""Figure 710 — Clock hands at different speeds."""

import math
from functools import lru_cache

import numpy as np

from posviz.figures.model import INK, PALETTE, EvenSlider, Figure, Plot, Slider
from posviz.maths import encoding

POSITIONS = np.linspace(0, 100, 801)
OFFSETS = np.arange(0, 101)
DOT = "PE(pos)·PE(pos+k)"
MARGIN = 0.1  # room above and below the dot-product curves, as a share of their span
# A gap between the two curves below this is floating-point noise, whose digits differ
# between the build's CPU and the reader's WebAssembly: it is named as what it is.
ROUNDING = 1e-9


@lru_cache(maxsize=16)
def hand_table(d_model: int) -> np.ndarray:
    """sin(p·ω_i) over POSITIONS for the drawn hands: one column per hand."""
    return np.sin(np.outer(POSITIONS, encoding.frequencies(d_model)[hands(d_model)]))


@lru_cache(maxsize=16)
def hands(d_model: int) -> list[int]:
    """The indices i of the hands drawn on the left."""
    return encoding.hand_indices(d_model)


@lru_cache(maxsize=64)
def offset_curves(pos: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """Both dot-product curves over OFFSETS: from the encoding rows, and Σ cos(ωᵢk)."""
    return (
        encoding.dot_from_rows(pos, OFFSETS, d_model),
        encoding.dot_closed_form(OFFSETS, d_model),
    )


def hand_label(i: int, d_model: int) -> str:
    """The legend's entry for hand i: its period."""
    period = 2 * math.pi / encoding.frequencies(d_model)[i]
    return f"hand {i}: period {period:.1f}" if period < 100 else f"hand {i}: period {period:,.0f}"


class ClockHands(Figure):
    """Sinusoidal positional encoding as clock hands, and its dot product at offset k."""

    figure_id = 710
    title = "Clock hands at different speeds"
    caption = (
        "Try this first: drag *pos* and watch the right-hand panel, which does not move. It "
        "plots the dot product of the encoding at *pos* with the encoding k steps later, and "
        "*pos* has dropped out of that product. Two lines draw it and coincide: the solid one "
        "multiplies the two encoding vectors entry by entry and adds up, the dashed one adds "
        "cos(ωᵢ·k) over the hands without ever looking at *pos*. At k = 0 the curve starts at "
        "d_model/2, the value of PE(pos)·PE(pos). On the left, four hands i (the sine "
        "dimensions 2i) against position, with *pos* as a dotted line. Hand 0, with ω₀ = 1, "
        "is back at its start after 2π ≈ 6.28 positions; each hand after it needs longer."
    )
    # Caption numbers no check computes (posviz check reads them; see model.Figure).
    numbers = {"2": "formula, not a quantity: d_model/2"}

    # pos is there to show that the dot product (right) does not depend on it.
    invariant = {"pos": ("rows", "closed", "dot")}

    pos = Slider(default=12, bounds=(0, 100), label="pos", doc="The position marked on the left.")
    d_model = EvenSlider(
        default=128,
        bounds=(16, 1024),
        step=16,
        label="d_model",
        doc="Width of the encoding (even): d_model/2 hands.",
    )

    def crossings(self) -> np.ndarray:
        """Where each drawn hand crosses pos: sin(pos·ω_i), the encoding's entry 2i."""
        return encoding.encoding([self.pos], self.d_model)[0][[2 * i for i in hands(self.d_model)]]

    def gap(self) -> str:
        """The largest gap between the two dot-product curves, as text."""
        rows, closed = offset_curves(self.pos, self.d_model)
        largest = float(np.max(np.abs(rows - closed)))
        return "under 1e-9 (rounding error)" if largest < ROUNDING else f"{largest:.1e}"

    def frame(self):
        """The hands and their legend, the pos line and marks, both curves, their range."""
        table, drawn = hand_table(self.d_model), hands(self.d_model)
        rows, closed = offset_curves(self.pos, self.d_model)
        low, high = min(rows.min(), closed.min()), max(rows.max(), closed.max())
        result = {}
        for n, i in enumerate(drawn):
            result[f"hand{n}"] = {"data": {"value": table[:, n]}}
            result[f"hand{n}:label"] = {"label": hand_label(i, self.d_model)}
        result["line"] = {"location": self.pos}
        result["marks"] = {
            "data": {"position": np.full(len(drawn), self.pos), "value": self.crossings()}
        }
        result["rows"] = {"data": {DOT: rows}}
        result["closed"] = {"data": {DOT: closed}}
        result["dot"] = {
            "title.text": f"Dot product, {self.d_model // 2} hands",
            "y_range.start": float(low - (high - low) * MARGIN),
            "y_range.end": float(high + (high - low) * MARGIN),
        }
        return result

    def draw(self, hv, frame):
        """The hands with the pos marks (left), both dot-product curves (right)."""
        curves = {
            f"hand{n}": hv.Curve(
                (POSITIONS, frame[f"hand{n}"]["data"]["value"]),
                "position",
                "value",
                label=frame[f"hand{n}:label"]["label"],
            ).opts(color=PALETTE[n], line_width=2)
            for n in range(len(hands(self.d_model)))
        }
        marks = frame["marks"]["data"]
        dots = {key: frame[key]["data"][DOT] for key in ("rows", "closed")}
        return [
            Plot(
                "hands",
                {
                    **curves,
                    "line": hv.VLine(self.pos).opts(color=INK, line_dash="dotted"),
                    "marks": hv.Scatter(
                        (marks["position"], marks["value"]), "position", "value"
                    ).opts(color=INK, size=7),
                },
                width=460,
                height=320,
                ylim=(-1.15, 2.0),
                legend_position="top_left",
                legend_cols=2,
                legend_opts={"background_fill_alpha": 0.85},
                title="sin(pos·ωᵢ) of four hands",
                show_grid=True,
            ),
            Plot(
                "dot",
                {
                    "rows": hv.Curve(
                        (OFFSETS, dots["rows"]), "offset k", DOT, label="from rows"
                    ).opts(color=PALETTE[0], line_width=3),
                    "closed": hv.Curve(
                        (OFFSETS, dots["closed"]), "offset k", DOT, label="Σ cos(ωᵢk)"
                    ).opts(color=PALETTE[1], line_width=2, line_dash="dashed"),
                },
                width=420,
                height=300,
                legend_position="top_right",
                show_grid=True,
            ),
        ]

    def readout(self):
        """pos, d_model, the slowest hand and the largest gap between the two curves."""
        slowest = 2 * math.pi / encoding.frequencies(self.d_model)[-1]
        return (
            f"pos = **{self.pos}** · d_model = **{self.d_model}** "
            f"({self.d_model // 2} hands, slowest turns once per {slowest:,.0f} positions) · "
            f"largest gap between the two curves: {self.gap()}"
        )

    def describe(self):
        """What the hands read at pos, and where the dot product goes."""
        rows, _ = offset_curves(self.pos, self.d_model)
        read = ", ".join(f"{value:+.2f}" for value in self.crossings())
        return (
            f"Left: four sine curves against position; at pos {self.pos} the hands read "
            f"{read}. Right: the dot product goes from {rows[0]:.1f} at offset 0 to "
            f"{rows[-1]:.1f} at offset {OFFSETS[-1]}; its two curves differ by {self.gap()}."
        )

    def table(self):
        """The dot-product curves every 10 offsets."""
        rows, closed = offset_curves(self.pos, self.d_model)
        return (
            f"PE(pos)·PE(pos+k) at pos = {self.pos}, d_model = {self.d_model}",
            ["offset k", "from rows", "Σ cos(ωᵢk)"],
            [(int(k), f"{rows[k]:.3f}", f"{closed[k]:.3f}") for k in OFFSETS[::10]],
        )
