"""Figure 2104 against RoPE written out: block-diagonal rotation matrices built with loops.

RoFormer (Su et al., 2021), §3.2.2, Eq. 14–16: the query at m becomes R_m·q, the key
at n becomes R_n·k, where R_p holds one 2×2 rotation by p·θ_i per pair of dimensions
(2i, 2i+1), θ_i = base^(−2i/d). Nothing below calls the figure to get an expected value.
"""

import math

import numpy as np
import pytest

from posviz.figures import RotaryScores
from posviz.figures import rotary_scores as rope


def rotation(p: float, d: int, base: float) -> np.ndarray:
    """R_p: d×d, zero except a rotation by p·θ_i in rows and columns 2i and 2i+1."""
    matrix = np.zeros((d, d))
    for i in range(d // 2):
        angle = p * base ** (-2 * i / d)
        c, s = math.cos(angle), math.sin(angle)
        matrix[2 * i, 2 * i], matrix[2 * i, 2 * i + 1] = c, -s
        matrix[2 * i + 1, 2 * i], matrix[2 * i + 1, 2 * i + 1] = s, c
    return matrix


def query_and_key(d: int) -> tuple[np.ndarray, np.ndarray]:
    """q ∝ (cos 0, cos 1, …), k ∝ (sin 1, sin 2, …), each scaled to length 1, by loops."""
    q = [math.cos(j) for j in range(d)]
    k = [math.sin(j + 1) for j in range(d)]
    q_length = math.sqrt(sum(x * x for x in q))
    k_length = math.sqrt(sum(x * x for x in k))
    return np.array([x / q_length for x in q]), np.array([x / k_length for x in k])


def by_matrices(m: float, n: float, d: int, base: float) -> float:
    """(R_m q)·(R_n k), every product written out."""
    q, k = query_and_key(d)
    rotated_q, rotated_k = rotation(m, d, base) @ q, rotation(n, d, base) @ k
    return sum(float(a * b) for a, b in zip(rotated_q, rotated_k, strict=True))


CASES = [(3, 8, 6, 16, 10000), (0, 15, 8, 4, 100), (12, 2, 5, 64, 500000), (7, 7, 3, 36, 1000)]


@pytest.mark.parametrize("m,n,s,d,base", CASES)
def test_a_common_shift_leaves_the_score_unchanged(m, n, s, d, base):
    assert abs(by_matrices(m + s, n + s, d, base) - by_matrices(m, n, d, base)) < 1e-12
    assert abs(rope.score(m + s, n + s, d, base) - by_matrices(m, n, d, base)) < 1e-12


@pytest.mark.parametrize("m,n,s,d,base", CASES)
def test_the_two_rotations_merge_into_one_by_the_offset(m, n, s, d, base):
    """R_mᵀ R_n = R_{n−m} (Eq. 16), so the score is qᵀ R_{n−m} k."""
    q, k = query_and_key(d)
    np.testing.assert_allclose(
        rotation(m, d, base).T @ rotation(n, d, base), rotation(n - m, d, base), atol=1e-12
    )
    assert abs(q @ rotation(n - m, d, base) @ k - by_matrices(m, n, d, base)) < 1e-12


@pytest.mark.parametrize("d", [4, 16, 40, 64])
@pytest.mark.parametrize("base", list(rope.BASES.values()))
def test_the_closed_form_is_the_rotated_dot_product(d, base):
    offsets = range(-40, 41)
    expected = [by_matrices(0, offset, d, base) for offset in offsets]
    np.testing.assert_allclose(rope.by_offset(list(offsets), d, base), expected, atol=1e-12)
    np.testing.assert_allclose(rope.curve(d, base), expected, atol=1e-12)


@pytest.mark.parametrize("d,base", [(16, 10000), (8, 100), (64, 500000)])
def test_the_map_is_the_rotated_dot_products_and_constant_along_each_diagonal(d, base):
    grid = rope.grid(d, base)
    expected = np.array([[by_matrices(m, n, d, base) for n in range(24)] for m in range(24)])
    np.testing.assert_allclose(grid, expected, atol=1e-12)
    for offset in range(-23, 24):
        diagonal = np.diagonal(grid, offset)  # the cells with n − m = offset
        assert np.ptp(diagonal) < 1e-12, offset
        assert abs(diagonal[0] - by_matrices(0, offset, d, base)) < 1e-12


def test_at_offset_zero_the_score_is_the_plain_dot_product():
    q, k = query_and_key(16)
    assert abs(rope.score(5, 5, 16, 10000) - float(q @ k)) < 1e-12


def test_a_key_ahead_scores_differently_from_one_behind():
    """Offsets +5 and −5 at the defaults (d = 16, base 10,000): 0.585 against 0.670."""
    ahead, behind = by_matrices(3, 8, 16, 10000), by_matrices(8, 3, 16, 10000)
    assert (round(ahead, 3), round(behind, 3)) == (0.585, 0.670)
    curve = dict(zip(rope.OFFSETS.tolist(), rope.curve(16, 10000), strict=True))
    assert abs(curve[5] - ahead) < 1e-12 and abs(curve[-5] - behind) < 1e-12
    # Added sinusoids give an even dot product: PE(p)·PE(p+5) = PE(p)·PE(p−5).
    q, k = query_and_key(16)
    encode = [rotation(p, 16, 10000) @ np.tile([0.0, 1.0], 8) for p in (3, 8, -2)]
    assert abs(encode[0] @ encode[1] - encode[0] @ encode[2]) < 1e-12


def test_the_asymmetry_comes_from_the_sine_terms():
    """With b_i = q_2i+1·k_2i − q_2i·k_2i+1 set to zero (k = q), +Δ and −Δ score alike."""
    q, _ = query_and_key(16)
    for offset in (1, 5, 17):
        up = q @ rotation(offset, 16, 10000) @ q
        down = q @ rotation(-offset, 16, 10000) @ q
        assert abs(up - down) < 1e-12


def test_the_shift_moves_the_marks_and_the_text_but_not_the_score():
    before, after = RotaryScores(s=0), RotaryScores(s=8)
    assert before.pair_scores()[0] == pytest.approx(after.pair_scores()[1], abs=1e-12)
    assert before.describe() != after.describe()
    frame = after.frame()
    assert frame["at_shifted"]["data"] == {"n": [16], "m": [11]}
    assert frame["shifted:label"]["label"] == "shifted (11, 16)"
    assert "(11, 16): score **0.585**" in after.readout()
    assert "(m, n) = (3, 8): score **0.585**" in after.readout()


def test_the_readout_and_table_state_the_swapped_pair_and_both_signs():
    figure = RotaryScores(m=12, n=2, d=4, base=100)
    expected = f"{by_matrices(2, 12, 4, 100):.3f}".replace("-", "−")  # a true minus sign
    assert f"offset n − m = **−10** · swapped to (2, 12), offset 10: score **{expected}**" in (
        figure.readout()
    )
    _, columns, rows = figure.table()
    assert columns == ["offset Δ", "score at +Δ", "score at −Δ"]
    for offset, ahead, behind in rows:
        assert float(ahead.replace("−", "-")) == round(by_matrices(0, offset, 4, 100), 3)
        assert float(behind.replace("−", "-")) == round(by_matrices(0, -offset, 4, 100), 3)


def test_the_base_slows_every_pair_but_the_first():
    for d in (4, 16, 64):
        slow, fast = rope.speeds(d, 500000), rope.speeds(d, 100)
        assert slow[0] == fast[0] == 1.0
        assert all(s < f for s, f in zip(slow[1:], fast[1:], strict=True))
        assert slow[-1] == pytest.approx(500000 ** (-(d - 2) / d))


def test_the_dimension_must_be_even():
    with pytest.raises(ValueError, match="must be even"):
        RotaryScores(d=6 + 1)
