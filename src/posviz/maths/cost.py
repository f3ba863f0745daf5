"""Entries of one attention layer's matrix on an S×S image.

Global attention: every pixel attends every pixel, (S²)² = S⁴ entries.
A k×k window: S² queries × k² keys. One axial layer (row and column
attention side by side, the criss-cross pattern of CCNet): each query
attends a span of m pixels along its row and m along its column, 2·S²·m.
A row pass followed by a column pass costs the same 2·S²·m in all. Window
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
