"""Sinusoidal positional encoding (Vaswani et al., 2017, section 3.5).

PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = 10000^(−2i/d_model).
Each (sin, cos) pair is a clock hand turning at angular speed ω_i.
"""

import numpy as np

BASE = 10000.0


def frequencies(d_model: int) -> np.ndarray:
    """Angular speeds ω_i of the d_model/2 hands, fastest (ω_0 = 1) first."""
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be an even number ≥ 2, got {d_model}")
    i = np.arange(d_model // 2)
    return BASE ** (-2.0 * i / d_model)


def encoding(positions, d_model: int) -> np.ndarray:
    """Encoding rows for ``positions``: shape (len(positions), d_model)."""
    angles = np.outer(np.asarray(positions, dtype=float), frequencies(d_model))
    table = np.empty((angles.shape[0], d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table


def dot_from_rows(pos: float, ks, d_model: int) -> np.ndarray:
    """PE(pos)·PE(pos + k) for each k, computed from the encoding rows."""
    ks = np.asarray(ks, dtype=float)
    anchor = encoding([pos], d_model)[0]
    return encoding(pos + ks, d_model) @ anchor


def dot_closed_form(ks, d_model: int) -> np.ndarray:
    """Σ_i cos(ω_i·k): the same dot product in closed form, with no pos in it."""
    return np.cos(np.outer(np.asarray(ks, dtype=float), frequencies(d_model))).sum(axis=1)


def hand_indices(d_model: int, fractions=(0.0, 1 / 16, 1 / 8, 1 / 4)) -> list[int]:
    """Indices i of one hand per fraction, spread over speeds and never repeated.

    Hand i turns at ω_i = 10000^(−2i/d_model). Taking i at a fixed fraction of
    d_model/2 gives 2i/d_model = fraction, so ω_i = 10000^(−fraction) whatever
    d_model is, and the chosen hands do not jump when the reader changes
    d_model. Where d_model is so small that two fractions round to the same i,
    the later hand moves on to the next slower one, so there is one distinct
    hand per fraction as long as d_model/2 has that many (d_model ≥ 8 for the
    default four).
    """
    half = d_model // 2
    picked: list[int] = []
    for fraction in fractions:
        index = round(fraction * half)
        if picked:
            index = max(index, picked[-1] + 1)
        if index >= half:
            break
        picked.append(index)
    return picked
