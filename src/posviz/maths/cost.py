"""Entries of one attention layer's matrix on an S×S image.

Global attention: every pixel attends every pixel, (S²)² = S⁴ entries.
A k×k window: S² queries × k² keys. One axial layer is a row pass and a
column pass, each query attending a span of m pixels along its row and m
along its column: 2·S²·m, whether the passes run side by side (the
criss-cross layer of CCNet) or one after the other (Axial-DeepLab). Window
and span cannot exceed the image, so k and m are clipped to S.
"""

import numpy as np

SCHEMES = ("global", "window", "axial")


def entries(sides, k: int, m: int) -> dict[str, np.ndarray]:
    """Attention-matrix entries per layer for each image side in ``sides``."""
    sides = np.asarray(sides, dtype=float)
    window = np.minimum(k, sides)
    span = np.minimum(m, sides)
    pixels = sides**2
    return {
        "global": pixels**2,
        "window": pixels * window**2,
        "axial": 2 * pixels * span,
    }


def window_to_axial(k: int, m: int) -> float:
    """Cost ratio window / axial where neither is clipped: k² / (2m)."""
    return k * k / (2 * m)


def crossing(k: int, m: int) -> float | None:
    """The image side above 2 where the window and axial curves change places, if any.

    Below S = m the span is clipped and axial costs 2·S³, against the
    window's S²·k² once S ≥ k: they meet at S = k²/2, a crossing when
    that lies between k and m (k ≥ 3 and k² < 2m). Past max(k, m) their
    ratio is the constant k²/(2m).
    """
    side = k * k / 2
    return side if k >= 3 and side < m else None
