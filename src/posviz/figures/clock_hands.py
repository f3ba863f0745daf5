"""Figure 710 — Clock hands at different speeds."""

import math
from functools import lru_cache

import holoviews as hv
import numpy as np
import param
from bokeh.core.property.vectorization import value

from posviz.figures.base import (
    INK,
    PALETTE,
    QUIET,
    EvenSlider,
    Figure,
    Slider,
    in_place,
    name_plot,
)
from posviz.maths import encoding

POSITIONS = np.linspace(0, 100, 801)
OFFSETS = np.arange(0, 101)
ROUNDING = 1e-9  # a gap between the two curves below this is floating-point noise
DOT = "PE(pos)·PE(pos+k)"
# HoloViews' default y padding of a curve, as a share of its span: the dot plot's range.
DOT_PADDING = 0.1


@lru_cache(maxsize=16)
def _hand_table(d_model: int) -> np.ndarray:
    """sin(p·ω_i) over POSITIONS for the drawn hands: one column per hand."""
    omegas = encoding.frequencies(d_model)[encoding.hand_indices(d_model)]
    return np.sin(np.outer(POSITIONS, omegas))


@lru_cache(maxsize=64)
def _offset_curves(pos: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    return (
        encoding.dot_from_rows(pos, OFFSETS, d_model),
        encoding.dot_closed_form(OFFSETS, d_model),
    )


class ClockHands(Figure):
    """Sinusoidal positional encoding as clock hands, and its dot product at offset k."""

    figure_id = 710
    title = "Clock hands at different speeds"
    caption = (
        "Try this first: drag *pos* and keep an eye on the right-hand panel. Its curve stays "
        "exactly where it is: the dot product of the encoding at *pos* with the encoding k "
        "steps further on is a function of k only. The solid line computes that product "
        "from the two encoding rows, the dashed line from Σᵢ cos(ωᵢ·k), and the two "
        "coincide. At k = 0 the"
        " curve starts at d_model/2, the value of PE(pos)·PE(pos). On the left are the sine "
        "dimensions of four hands against position, with *pos* as a dotted line. The fastest "
        "hand has ω₀ = 1 and turns once every 2π ≈ 6.28 positions; every later hand turns "
        "more slowly."
    )

    pos = Slider(default=12, bounds=(0, 100), label="pos", doc="The position marked on the left.")
    d_model = EvenSlider(
        default=128,
        bounds=(16, 1024),
        step=16,
        label="d_model",
        doc="Width of the encoding (even): d_model/2 hands.",
    )

    def encoded(self, positions) -> np.ndarray:
        """The encoding's rows at ``positions``: shape (len(positions), d_model)."""
        return encoding.encoding(positions, self.d_model)

    def dot_products(self, ks) -> tuple[np.ndarray, np.ndarray]:
        """PE(pos)·PE(pos+k) for each k in ``ks``: from the rows, and from Σ cos(ωᵢk)."""
        return (
            encoding.dot_from_rows(self.pos, ks, self.d_model),
            encoding.dot_closed_form(ks, self.d_model),
        )

    def offset_curves(self) -> tuple[np.ndarray, np.ndarray]:
        """Both dot-product curves over OFFSETS, computed once per (pos, d_model)."""
        return _offset_curves(self.pos, self.d_model)

    def hands(self) -> list[tuple[int, float]]:
        """(i, ω_i) of the hands drawn on the left."""
        omegas = encoding.frequencies(self.d_model)
        return [(i, float(omegas[i])) for i in encoding.hand_indices(self.d_model)]

    def hand_labels(self) -> list[str]:
        """The legend's entry for each drawn hand."""
        periods = [2 * math.pi / omega for _, omega in self.hands()]
        return [
            f"dim {2 * i}: period {period:.1f}"
            if period < 100
            else f"dim {2 * i}: period {period:,.0f}"
            for (i, _), period in zip(self.hands(), periods, strict=True)
        ]

    @param.depends()
    def hand_curves(self):
        """The hands' sine curves: a d_model step replaces their values and legend entries."""
        table = _hand_table(self.d_model)
        return hv.Overlay(
            [
                hv.Curve((POSITIONS, table[:, n]), "position", "value", label=label).opts(
                    color=PALETTE[n], line_width=2, hooks=[self.track(f"hand{n}")], **QUIET
                )
                for n, label in enumerate(self.hand_labels())
            ]
        )

    def marks(self) -> tuple[np.ndarray, np.ndarray]:
        """(positions, values) of the marks where each drawn hand crosses pos."""
        at_pos = self.encoded([self.pos])[0]
        values = np.array([at_pos[2 * i] for i, _ in self.hands()])
        return np.full(len(values), self.pos), values

    @param.depends()
    def pos_marks(self):
        """The dotted line at pos and a mark where each hand crosses it (moved in place)."""
        marks = hv.Scatter(self.marks(), "position", "value")
        line = hv.VLine(self.pos).opts(color=INK, line_dash="dotted", hooks=[self.track("line")])
        return line * marks.opts(color=INK, size=7, hooks=[self.track("marks")], **QUIET)

    def dot_title(self) -> str:
        """The dot-product plot's title."""
        return f"Dot product, {self.d_model // 2} hands"

    @param.depends()
    def dot_plot(self):
        """Both dot-product curves over OFFSETS: from the rows (solid), closed form (dashed).

        Drawn once. A pos step recomputes the solid curve from the rows at the
        new pos and sends only its values (``_step_pos``); a d_model step also
        sends the dashed curve, the title and the y range (``_step_width``).
        """
        rows, closed = self.offset_curves()
        overlay = hv.Overlay(
            [
                self._dot_curve("rows", rows, "from rows", color=PALETTE[0], line_width=3),
                self._dot_curve(
                    "closed",
                    closed,
                    "Σ cos(ωᵢk)",
                    color=PALETTE[1],
                    line_width=2,
                    line_dash="dashed",
                ),
            ]
        )
        return overlay.opts(
            toolbar=None,
            width=420,
            height=300,
            legend_position="top_right",
            show_grid=True,
            title=self.dot_title(),
            framewise=True,
            hooks=[name_plot(f"posviz-{self.figure_id}-dot"), self.track("dot")],
        )

    def _dot_curve(self, key: str, values, label: str, **style):
        """One dot-product curve against the offset k, tracked as ``key`` for in-place steps."""
        return hv.Curve((OFFSETS, values), "offset k", DOT, label=label).opts(
            framewise=True, hooks=[self.track(key)], **style, **QUIET
        )

    @param.depends("pos", watch=True)
    @in_place
    def _step_pos(self):
        """Move the drawn line and marks to pos, and redraw the solid curve from its rows."""
        positions, values = self.marks()
        for plot in self.drawn("line"):
            plot.handles["glyph"].location = self.pos
        for plot in self.drawn("marks"):
            plot.handles["source"].data.update({"position": positions, "value": values})
        rows, _ = self.offset_curves()
        for plot in self.drawn("rows"):
            plot.handles["source"].data.update({DOT: rows})

    @param.depends("d_model", watch=True)
    @in_place
    def _step_width(self):
        """Set the drawn hands, legend, marks, dot products, title and y range to d_model."""
        table = _hand_table(self.d_model)
        for n, label in enumerate(self.hand_labels()):
            for plot in self.drawn(f"hand{n}"):
                plot.handles["source"].data.update({"value": table[:, n]})
                renderer = plot.handles["glyph_renderer"]
                for legend in plot.state.legend:
                    for item in legend.items:
                        if renderer in item.renderers:
                            item.label = value(label)
        self._step_pos()
        rows, closed = self.offset_curves()
        for plot in self.drawn("closed"):
            plot.handles["source"].data.update({DOT: closed})
        low = min(rows.min(), closed.min())
        high = max(rows.max(), closed.max())
        pad = (high - low) * DOT_PADDING
        for plot in self.drawn("dot"):
            plot.state.title.text = self.dot_title()
            plot.state.y_range.update(start=low - pad, end=high + pad)

    def plots(self):
        """Hands with the pos marks (left), dot products (right)."""
        hands = (hv.DynamicMap(self.hand_curves) * hv.DynamicMap(self.pos_marks)).opts(
            width=460,
            height=320,
            ylim=(-1.15, 2.0),
            legend_position="top_left",
            legend_cols=2,
            legend_opts={"background_fill_alpha": 0.85},
            title="sin(pos·ωᵢ) of four hands",
            toolbar=None,
            show_grid=True,
            hooks=[name_plot(f"posviz-{self.figure_id}-hands")],
        )
        return [hands, hv.DynamicMap(self.dot_plot)]

    def gap(self) -> str:
        """The largest gap between the two curves, as text.

        Below ``ROUNDING`` it is floating-point noise, whose digits differ between
        machines (the build's CPU and the reader's WebAssembly): the page's text and
        the live figure must say the same, so it is named as what it is.
        """
        rows, closed = self.offset_curves()
        gap = float(np.max(np.abs(rows - closed)))
        return "under 1e-9 (rounding error)" if gap < ROUNDING else f"{gap:.1e}"

    def readout(self) -> str:
        """pos, d_model, the slowest hand and the largest gap between the two curves."""
        return (
            f"pos = **{self.pos}** · d_model = **{self.d_model}** "
            f"({self.d_model // 2} hands, slowest turns once per "
            f"{2 * math.pi / encoding.frequencies(self.d_model)[-1]:,.0f} positions) · "
            f"largest gap between the two curves: {self.gap()}"
        )

    def describe(self) -> str:
        """A short sentence saying what the plots show at the current values."""
        at_pos = self.encoded([self.pos])[0]
        hands = ", ".join(f"{at_pos[2 * i]:+.2f}" for i, _ in self.hands())
        rows, closed = self.offset_curves()
        return (
            f"Left: four sine curves against position; at pos {self.pos} the hands read "
            f"{hands}. Right: the dot product goes from {rows[0]:.1f} at offset 0 to "
            f"{rows[-1]:.1f} at offset {OFFSETS[-1]}; its two curves differ by "
            f"{self.gap()}."
        )

    def table(self) -> tuple[str, list[str], list[tuple]]:
        """The dot-product curves every 10 offsets."""
        rows, closed = self.offset_curves()
        return (
            f"PE(pos)·PE(pos+k) at pos = {self.pos}, d_model = {self.d_model}",
            ["offset k", "from rows", "Σ cos(ωᵢk)"],
            [(int(k), f"{rows[k]:.3f}", f"{closed[k]:.3f}") for k in OFFSETS[::10]],
        )
