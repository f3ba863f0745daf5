"""Figure 710 — Clock hands at different speeds."""

import holoviews as hv
import numpy as np
import param

from posviz.figures.base import INK, PALETTE, QUIET, EvenSlider, Figure, Slider
from posviz.frames import clock_hands as frames
from posviz.frames.clock_hands import DOT, OFFSETS, POSITIONS
from posviz.maths import encoding


class ClockHands(Figure):
    """Sinusoidal positional encoding as clock hands, and its dot product at offset k."""

    figure_id = 710

    island_height = (498, 839)  # drawn: wide, narrow (the least over widths)
    watched_plot, stepped_slider = "hands", "pos"  # what the benchmarks step
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

    pos = Slider(default=12, bounds=(0, 100), label="pos", doc="The position marked on the left.")
    d_model = EvenSlider(
        default=128,
        bounds=(16, 1024),
        step=16,
        label="d_model",
        doc="Width of the encoding (even): d_model/2 hands.",
    )

    frame_of = staticmethod(frames.frame)

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
        return frames.offset_curves(self.pos, self.d_model)

    def hands(self) -> list[tuple[int, float]]:
        """(i, ω_i) of the hands drawn on the left."""
        return frames.hands(self.d_model)

    def hand_labels(self) -> list[str]:
        """The legend's entry for each drawn hand."""
        return frames.hand_labels(self.d_model)

    @param.depends()
    def hand_curves(self):
        """The hands' sine curves: a d_model step replaces their values and legend entries."""
        table = frames.hand_table(self.d_model)
        return hv.Overlay(
            [
                hv.Curve((POSITIONS, table[:, n]), "position", "value", label=label).opts(
                    color=PALETTE[n], line_width=2, hooks=[self.names_data(f"hand{n}")], **QUIET
                )
                for n, label in enumerate(self.hand_labels())
            ]
        )

    def marks(self) -> tuple[np.ndarray, np.ndarray]:
        """(positions, values) of the marks where each drawn hand crosses pos."""
        return frames.marks(self.pos, self.d_model)

    @param.depends()
    def pos_marks(self):
        """The dotted line at pos and a mark where each hand crosses it."""
        marks = hv.Scatter(self.marks(), "position", "value")
        line = hv.VLine(self.pos).opts(
            color=INK, line_dash="dotted", hooks=[self.names_data("line")]
        )
        return line * marks.opts(color=INK, size=7, hooks=[self.names_data("marks")], **QUIET)

    def dot_title(self) -> str:
        """The dot-product plot's title."""
        return frames.dot_title(self.d_model)

    @param.depends()
    def dot_plot(self):
        """Both dot-product curves over OFFSETS: from the rows (solid), closed form (dashed).

        Drawn once: a step applies the figure's frame (``posviz.frames.clock_hands``).
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
            hooks=[self.names_plot("dot")],
        )

    def _dot_curve(self, key: str, values, label: str, **style):
        """One dot-product curve against the offset k, its data named ``key``."""
        return hv.Curve((OFFSETS, values), "offset k", DOT, label=label).opts(
            framewise=True, hooks=[self.names_data(key)], **style, **QUIET
        )

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
            hooks=[self.names_plot("hands")],
        )
        return [hands, hv.DynamicMap(self.dot_plot)]

    def gap(self) -> str:
        """The largest gap between the two curves, as text (``frames.gap``)."""
        return frames.gap(self.values())
