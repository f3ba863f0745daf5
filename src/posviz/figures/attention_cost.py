"""Figure 7256 — What one attention layer costs on an image.

Counts one layer's attention-matrix entries on an S×S image. Global attention:
every pixel attends every pixel, (S²)² = S⁴. A k×k window: S² queries × k²
keys, every query keeping all of them (as with zero padding). One axial layer
is a row pass and a column pass, each query attending a span of m pixels along
its row and m along its column: 2·S²·m, as in Axial-DeepLab's pair of passes,
and within one key per query of CCNet's single attention over the cross.
Window and span cannot exceed the image: k and m are clipped to S.
"""

import numpy as np

from posviz.figures.model import PALETTE, Figure, Plot, Slider

SCHEMES = ("global", "window", "axial")
LABELS = {"global": "global  S⁴", "window": "k×k window  S²·k²", "axial": "axial  2·S²·m"}
SIDES = np.unique(np.round(np.geomspace(1, 256, 200)))
Y = "log10 entries per layer"


def entries(sides, k: int, m: int) -> dict[str, np.ndarray]:
    """Attention-matrix entries per layer of each scheme, for each image side in ``sides``."""
    sides = np.asarray(sides, dtype=float)
    pixels = sides**2
    return {
        "global": pixels**2,
        "window": pixels * np.minimum(k, sides) ** 2,
        "axial": 2 * pixels * np.minimum(m, sides),
    }


def window_to_axial(k: int, m: int) -> float:
    """Cost ratio window / axial where neither is clipped: k² / (2m)."""
    return k * k / (2 * m)


def crossing(k: int, m: int) -> float | None:
    """The image side above 2 where the window and axial curves change places, if any.

    Below S = m the span is clipped and axial costs 2·S³, against the window's
    S²·k² once S ≥ k: they meet at S = k²/2, a crossing when that lies between
    k and m (k ≥ 3 and k² < 2m). Past max(k, m) their ratio is the constant k²/(2m).
    """
    side = k * k / 2
    return side if k >= 3 and side < m else None


class AttentionCost(Figure):
    """Entries of one attention layer against image side, for global, window and axial."""

    figure_id = 7256
    title = "What one attention layer costs on an image"
    caption = (
        "Start at the defaults, k = 7 and m = 32, and find where the two lower curves cross: at"
        " S = k²/2 = 24.5. Between S = 2 and that point the image is narrower than the span, so "
        "an axial layer costs 2·S³ and comes out cheaper; beyond it the window does. Past the "
        "dotted line at S = k and the dashed line at S = m nothing is clipped, both curves grow"
        " as S² and they run parallel, a constant factor k²/(2m) apart: try k = 8, where k² = "
        "2m and the two coincide from S = m on. Each curve counts the entries of one layer's "
        "attention matrix on an S×S image, on a log10 scale against the image side: S⁴ for "
        "global attention, S²·k² for a k×k window (every query keeping all its keys, as with "
        "zero padding), and 2·S²·m for one axial layer: a row pass and a column pass of span "
        "m, or, one key fewer per query, CCNet's single attention over the cross."
    )
    numbers = {"2": "formula, not a quantity: k²/2, 2·S³, k²/(2m), k² = 2m, 2·S²·m"}

    k = Slider(
        default=7,
        bounds=(1, 32),
        label="k (window side)",
        doc="Side of the local window, k×k pixels.",
    )
    m = Slider(
        default=32,
        bounds=(1, 256),
        label="m (axial span)",
        doc="Pixels one axial pass attends along its axis.",
    )

    def frame(self):
        """The three curves, the lines at S = k and S = m, and the title."""
        result = {
            scheme: {"data": {Y: np.log10(values)}}
            for scheme, values in entries(SIDES, self.k, self.m).items()
        }
        result["tie"] = {"location": self.k}
        result["span"] = {"location": self.m}
        result["cost"] = {"title.text": f"k = {self.k}, m = {self.m}"}
        return result

    def draw(self, hv, frame):
        """The three cost curves, log10, with a dotted line at S = k and a dashed one at S = m."""
        curves = {
            scheme: hv.Curve(
                (SIDES, frame[scheme]["data"][Y]), "image side S (pixels)", Y, label=LABELS[scheme]
            ).opts(color=colour, line_width=2 if scheme == "global" else 3)
            for scheme, colour in zip(SCHEMES, PALETTE, strict=False)
        }
        lines = {
            "tie": hv.VLine(self.k).opts(color="#999999", line_dash="dotted"),
            "span": hv.VLine(self.m).opts(color="#999999", line_dash="dashed"),
        }
        return [
            Plot(
                "cost",
                {**curves, **lines},
                width=620,
                height=320,
                legend_position="top_left",
                show_grid=True,
                ylim=(0, 10),
                xlim=(1, 256),
                logx=True,
            )
        ]

    def readout(self):
        """k, m, the window/axial ratio, where the curves cross, and what is clipped where."""
        k, m = self.k, self.m
        ratio = window_to_axial(k, m)
        verdict = (
            "they tie"
            if ratio == 1
            else "the window is cheaper"
            if ratio < 1
            else "axial is cheaper"
        )
        cross = crossing(k, m)
        where = (
            f"the curves cross at S = k²/2 = **{cross:g}**, axial cheaper below it"
            if cross is not None
            else "the curves do not cross above S = 2"
        )
        clipped = [
            f"the {what} is clipped to S for S < {n}"
            for what, n in (("window", k), ("span", m))
            if n > 1
        ]
        return (
            f"k = **{k}**, m = **{m}** · window / axial = k²/(2m) = "
            f"{k**2}/{2 * m} = **{ratio:.2f}**: {verdict} "
            f"(on images large enough for neither to be clipped) · {where}.  \n"
            f"The dotted line marks S = k and the dashed line S = m; "
            f"{'; '.join(clipped) or 'nothing is clipped'}."
        )

    def describe(self):
        """The three costs at S = 64."""
        at = entries(np.array([64]), self.k, self.m)
        return (
            "Log-scale curves of attention entries per layer against image side; at S = 64 "
            + ", ".join(f"{LABELS[s]} {float(v[0]):.3g}" for s, v in at.items())
            + "."
        )

    def table(self):
        """Entries per layer at a few image sides."""
        sides = np.array([8, 16, 32, 64, 128, 256])
        found = entries(sides, self.k, self.m)
        return (
            f"Attention entries per layer, k = {self.k}, m = {self.m}",
            ["image side S", *[LABELS[s] for s in found]],
            [
                (int(side), *[f"{float(v[n]):.4g}" for v in found.values()])
                for n, side in enumerate(sides)
            ],
        )
