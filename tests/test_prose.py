"""Checked numbers: every number the pages and captions state is either computed
again here from ``posviz.maths`` (or by hand for the worked example), or declared
by its page next to the text (``numbers:``, which ``posviz check`` computes again
from the figure view it names), or is a fact quoted from a named paper, or is part
of a formula or a name.

Each check here finds its sentence in the text, reads the numbers out of it and
compares them with a fresh computation, so a formula change that leaves the
prose behind fails here. ``test_every_number_is_accounted_for`` runs every check
itself and makes a new number in the prose fail until it is declared, checked or
sourced; no test depends on another having run.
"""

import contextvars
import functools
import inspect
import math
import re
from pathlib import Path

import holoviews as hv
import numpy as np
import pytest
from bokeh.models import Span

from posviz import content
from posviz.content.numbers import tokens
from posviz.drawing import plots
from posviz.figures import FIGURES, AttentionCost, ClockHands, ParameterBudget, QueryReach
from posviz.figures import attention_cost as cost
from posviz.figures import parameter_budget as budget
from posviz.figures import query_reach as reach
from posviz.figures.parameter_budget import PRESETS
from posviz.maths import encoding

CONTENT = Path(__file__).resolve().parents[1] / "content"
QKV, AIAYN, PIXELS = "query-key-value", "attention-is-all-you-need", "attention-meets-pixels"


def page_text(slug: str) -> str:
    page = content.load(CONTENT).pages[slug]
    blocks = [b for s in page.sections for b in s.blocks if isinstance(b, str)]
    return "\n\n".join([page.summary, *blocks])


def caption(figure_id: int) -> str:
    return " ".join(FIGURES[figure_id].caption.split())


def stated(text: str, pattern: str) -> tuple[str, ...]:
    """The numbers captured by ``pattern``, which must occur in ``text`` exactly once."""
    found = re.findall(pattern, text)
    assert len(found) == 1, f"expected one sentence matching {pattern!r}, found {len(found)}"
    return found[0] if isinstance(found[0], tuple) else (found[0],)


def fmt(value: float, decimals: int = 0) -> str:
    return f"{value:,.{decimals}f}"


def scheme(name: str):
    """The id ``posviz.maths.reach`` knows a scheme by (a number or a name)."""
    aliases = {
        "local": {"local", "local window"},
        "block-1d": {"block-1d", "1D block"},
        "block-2d": {"block-2d", "2D block"},
    }.get(name, {name})
    names = getattr(reach, "SCHEME_NAMES", {})
    if isinstance(names, dict):
        for key, value in names.items():
            if value in aliases or key in aliases:
                return key
    return name


# The checks whose numbers count as verified, in the order written; the accounting test
# runs each of them itself, collecting what they verify here (nothing outside it).
NUMBER_CHECKS: list = []
COLLECTING: contextvars.ContextVar = contextvars.ContextVar("collecting", default=None)


def counts(check):
    """Marks a test whose ``checked`` numbers count as verified (it stays a test)."""
    NUMBER_CHECKS.append(check)
    return check


def checked(source: str, *numbers: str):
    """Reports numbers a check verified, per source, to the accounting test if it runs."""
    found = COLLECTING.get()
    if found is not None:
        found.setdefault(source, set()).update(numbers)


@functools.cache  # one run per process: the accounting has a case per source
def verified() -> dict[str, set[str]]:
    """Every number the checks verify, per source: each check run once, here."""
    found: dict[str, set[str]] = {}
    token = COLLECTING.set(found)
    try:
        for check in NUMBER_CHECKS:
            check()
    finally:
        COLLECTING.reset(token)
    return found


# --- Attention Is All You Need -------------------------------------------------------

BASE, BIG = PRESETS["base"], PRESETS["big"]


def total(preset) -> int:
    return sum(budget.parameter_counts(**preset).values())


def test_presets_are_the_papers_table_3_sizes():
    """Vaswani et al. (2017), Table 3 (sizes) and §5.1 (the 37,000-token BPE vocabulary)."""
    assert (BASE["d_model"], BASE["d_ff"], BASE["n_layers"]) == (512, 2048, 6)
    assert (BIG["d_model"], BIG["d_ff"], BIG["n_layers"]) == (1024, 4096, 6)
    assert BASE["vocab_size"] == BIG["vocab_size"] == 37000


@counts
def test_totals_beside_the_papers():
    text = page_text(AIAYN)
    paper_base, paper_big = stated(text, r"Table 3 lists (\d+) M parameters for base and (\d+) M")
    assert (paper_base, paper_big) == ("65", "213")  # Vaswani et al. (2017), Table 3
    ours = stated(text, r"This count gives (\d+\.\d) M and (\d+\.\d) M")
    assert ours == (fmt(total(BASE) / 1e6, 1), fmt(total(BIG) / 1e6, 1)) == ("63.1", "214.2")
    # The figure must not look wrong to a reader of Table 3: within 5 % of the paper.
    assert abs(total(BASE) / 65e6 - 1) < 0.05 and abs(total(BIG) / 213e6 - 1) < 0.05
    checked(AIAYN, paper_base, paper_big, *ours)


@counts
def test_projection_biases_are_about_37k_in_the_base_model():
    text = page_text(AIAYN)
    per_block, blocks, enc, dec_self, dec_cross, thousands = stated(
        text,
        r"4·(\d+) per block over the (\d+) attention blocks of the base model "
        r"\((\d+) \+ (\d+) \+ (\d+): one in each encoder layer, two in each decoder layer, "
        r"see §3 below\), about (\d+) K",
    )
    d = BASE["d_model"]
    bias_per_block = budget.attention_block(d) - 4 * d * d
    counts = budget.parameter_counts(**BASE)
    per_role = {
        role: counts[role] // budget.attention_block(d)
        for role in budget.ROLES
        if "attention" in role
    }
    assert bias_per_block == 4 * int(per_block)
    # The 6 + 6 + 6, role by role: encoder self-attention, decoder self- and cross-attention.
    assert list(per_role.values()) == [int(enc), int(dec_self), int(dec_cross)]
    assert sum(per_role.values()) == int(blocks) == 18
    assert fmt(sum(per_role.values()) * bias_per_block / 1000) == thousands == "37"
    assert "Writing d for d_model, an attention block then holds 4·d² + 4·d parameters" in text
    checked(AIAYN, per_block, blocks, enc, dec_self, dec_cross, thousands)


@counts
def test_shares_of_a_layer_and_of_the_model():
    text = page_text(AIAYN)
    share = budget.encoder_layer_share(BASE["d_model"], BASE["d_ff"])["feed-forward"]
    assert "feed-forward network holds two thirds of an encoder layer" in text
    assert abs(share - 2 / 3) < 0.01
    (stated_share,) = stated(text, r"two thirds of an encoder layer \((\d+\.\d) % in the base")
    assert stated_share == fmt(100 * share, 1)
    counts = budget.parameter_counts(**BASE)
    (embedding,) = stated(text, r"it holds (\d+\.\d) % of the base model")
    assert embedding == fmt(100 * counts["embedding"] / total(BASE), 1)
    checked(AIAYN, stated_share, embedding)


def test_attention_and_feed_forward_grow_fourfold_the_embedding_and_norms_double():
    """Base to big: the page and caption 96 sort the bars into these two groups."""
    base, big = budget.parameter_counts(**BASE), budget.parameter_counts(**BIG)
    growth = {role: big[role] / base[role] for role in base}
    fourfold = {r for r, g in growth.items() if 3.9 < g < 4.1}
    doubled = {r for r, g in growth.items() if g == 2}
    assert fourfold == {r for r in base if "attention" in r or "feed-forward" in r}
    assert doubled == {"embedding", "layer norm"}
    for text in (page_text(AIAYN), caption(96)):
        assert "feed-forward bars grow about fourfold" in text, text
        assert re.search(r"embedding and the layer.norm bars?,? .*only double", text), text


def test_heads_do_not_change_the_count():
    """Nothing in the count depends on h: the page says a slider for h would move nothing."""
    assert "h" not in ParameterBudget().sliders()
    assert "a slider for h would move nothing" in page_text(AIAYN)


@counts
def test_clock_hands_numbers():
    text = page_text(AIAYN)
    omegas = encoding.frequencies(128)
    assert "with ω₀ = 1 it is back at its start after 2π ≈ 6.28 positions" in text
    assert omegas[0] == 1 and fmt(2 * math.pi / omegas[0], 2) == "6.28"
    (base,) = stated(text, r"approaching (\d+)·2π for the last")
    periods = 2 * math.pi / omegas
    assert periods[-1] < float(base) * 2 * math.pi == encoding.BASE * 2 * math.pi
    assert periods[-1] == pytest.approx(encoding.BASE * 2 * math.pi, rel=0.2)
    # "grow by the same factor from hand to hand"
    assert np.all(np.diff(np.log(omegas)) == pytest.approx(np.log(omegas[1] / omegas[0])))
    checked(AIAYN, "1", "6.28", base)


@counts
def test_the_bare_dot_product_is_even_but_no_ruler():
    """It depends on |k| only, but does not fall steadily: a farther pair can score higher."""
    text = page_text(AIAYN)
    width, near, near_k, far, far_k = stated(
        text,
        r"At d_model = (\d+) it is (\d+\.\d+) at k = (\d+) and (\d+\.\d+) at k = (\d+), so the "
        r"farther pair scores higher",
    )
    d_model = int(width)
    omegas = [10000.0 ** (-2 * i / d_model) for i in range(d_model // 2)]
    for k, value in ((int(near_k), near), (int(far_k), far)):
        by_hand = sum(math.cos(w * k) for w in omegas)  # Σ cos(ωᵢ·k), written out
        assert fmt(by_hand, 2) == value
        assert by_hand == pytest.approx(sum(math.cos(-w * k) for w in omegas))  # even in k
    assert float(far) > float(near) and int(far_k) > int(near_k)
    assert "the figure draws k ≥ 0 only; the other half is its mirror image" in text
    checked(AIAYN, width, near, near_k, far, far_k)


@counts
def test_self_dot_product_is_half_the_width():
    text = page_text(AIAYN)
    value, width = stated(
        text,
        r"PE\(p\)·PE\(p\) = d_model/2 for every position: (\d+) at the figure's starting "
        r"width of d_model = (\d+)",
    )
    assert int(width) == ClockHands.param.d_model.default
    for d_model in (16, int(width), 1024):
        for pos in (0, 7, 99.5):
            assert encoding.dot_from_rows(pos, [0], d_model)[0] == pytest.approx(d_model / 2)
    assert encoding.dot_closed_form([0], int(width))[0] == pytest.approx(int(value))
    assert "At k = 0 the curve starts at d_model/2" in caption(710)
    checked(AIAYN, value, width)


def test_rotation_matrix_carries_pe_p_to_pe_p_plus_k():
    """The 2×2 block the page writes out, applied to every hand at once."""
    d_model, k = 64, 5
    omegas = encoding.frequencies(d_model)
    for p in (0, 3, 41):
        row, shifted = encoding.encoding([p], d_model)[0], encoding.encoding([p + k], d_model)[0]
        for i, omega in enumerate(omegas):
            rotation = np.array(
                [[np.cos(k * omega), np.sin(k * omega)], [-np.sin(k * omega), np.cos(k * omega)]]
            )
            assert rotation @ row[2 * i : 2 * i + 2] == pytest.approx(shifted[2 * i : 2 * i + 2])
    text = page_text(AIAYN)
    assert "⎣ cos((p+k)·ωᵢ) ⎦ = ⎣ −sin(k·ωᵢ)   cos(k·ωᵢ) ⎦ ⎣ cos(p·ωᵢ) ⎦" in text


# --- Attention Meets Pixels ----------------------------------------------------------


@counts
def test_global_entries_at_224():
    text = page_text(PIXELS)
    side, billions = stated(text, r"At (\d+)×\d+ that is about (\d\.\d) × 10⁹ entries")
    entries = cost.entries([int(side)], 7, 32)["global"][0]
    assert billions == fmt(entries / 1e9, 1)
    (gigabytes,) = stated(text, r"roughly (\d+) GB in 32-bit floats")
    assert gigabytes == fmt(entries * 4 / 1e9)
    tokens, pairs = stated(text, r"a (\d+)-token sentence needs ([\d,]+)")
    assert pairs == fmt(int(tokens) ** 2)
    checked(PIXELS, side, billions, gigabytes, tokens, pairs)


@counts
def test_window_ratio_at_224():
    text = page_text(PIXELS)
    side, k, ratio = stated(text, r"at S = (\d+) a (\d+)×\d+ window needs ([\d,]+) times fewer")
    found = cost.entries([int(side)], int(k), 1)
    assert ratio == fmt(found["global"][0] / found["window"][0]) == "1,024"
    checked(PIXELS, side, k, ratio)


# Image sides between the half-integers: a crossing at S = k²/2 falls strictly between two.
FINE_SIDES = np.arange(1.0, 256.01, 0.25)


def crossings(k: int, m: int, sides=FINE_SIDES) -> list[float]:
    """Where the figure's window and axial curves change places (midpoints of sign changes)."""
    found = cost.entries(sides, k, m)
    sign = np.sign(found["window"] - found["axial"])
    at = np.flatnonzero(sign)
    return [
        float(sides[a] + sides[b]) / 2
        for a, b in zip(at, at[1:], strict=False)
        if sign[a] != sign[b]
    ]


@counts
def test_window_and_axial_tie():
    """k² = 2m: the curves coincide from S = max(k, m) on, and only there."""
    text = page_text(PIXELS)
    k, m, start = stated(
        text, r"\(for example k = (\d+) and m = (\d+)\) and from S = (\d+) on the two curves lie"
    )
    assert cost.window_to_axial(int(k), int(m)) == 1
    sides = np.arange(1, 257)
    found = cost.entries(sides, int(k), int(m))
    tied = sides[found["window"] == found["axial"]]
    assert int(start) == max(int(k), int(m))
    assert tied[tied > 2].min() == int(start) and np.all(np.diff(tied[tied > 2]) == 1)
    assert tied.max() == 256
    (k8,) = stated(caption(7256), r"try k = (\d+), where k² = 2m and the two coincide")
    assert cost.window_to_axial(int(k8), AttentionCost.param.m.default) == 1
    checked(PIXELS, k, m, start)
    checked("7256", k8)


def test_curves_are_parallel_only_where_nothing_is_clipped():
    """The gap log10(k²/2m) is the same at every S ≥ max(k, m), and nowhere below (k ≠ √(2m))."""
    text = page_text(PIXELS)
    assert (
        "run parallel only where the image is at least as wide as both the window and the "
        "span, S ≥ max(k, m)" in text
    )
    sides = np.arange(1, 257, dtype=float)
    for k, m in [(7, 32), (16, 32), (32, 8), (3, 100), (20, 20)]:
        found = cost.entries(sides, k, m)
        gap = np.log10(found["window"] / found["axial"])
        unclipped = sides >= max(k, m)
        assert gap[unclipped] == pytest.approx(math.log10(k * k / (2 * m)))
        assert gap[unclipped] == pytest.approx(math.log10(cost.window_to_axial(k, m)))
        below = sides[(sides < max(k, m)) & (sides >= 2)]
        if below.size:  # just below max(k, m), one of the two is clipped: the gap differs
            assert gap[int(below[-1]) - 1] != pytest.approx(gap[-1])


@counts
def test_curves_cross_at_k_squared_over_two():
    """The page's and the caption's crossing, and the rule for every k and m the sliders allow."""
    text = page_text(PIXELS)
    three, k, m, side = stated(
        text,
        r"for any k ≥ (\d+) with k² < 2m the curves cross at S = k²/2, and above S = 2 "
        r"nowhere else: with the defaults, k = (\d+) and m = (\d+), axial is the cheaper "
        r"below S = (\d+\.\d) and the window above it",
    )
    assert (int(k), int(m)) == (AttentionCost.param.k.default, AttentionCost.param.m.default)
    (found,) = [c for c in crossings(int(k), int(m)) if c > 2]
    assert abs(found - float(side)) <= 0.125 and float(side) == int(k) ** 2 / 2
    near = cost.entries([float(side) - 1, float(side) + 1], int(k), int(m))
    below, above = near["window"] / near["axial"]
    assert below > 1 > above  # axial cheaper below the crossing, the window above it
    ck, cm, cside = stated(
        caption(7256),
        r"Start at the defaults, k = (\d+) and m = (\d+), and find where the two lower curves "
        r"cross: at S = k²/2 = (\d+\.\d)\.",
    )
    assert (ck, cm, cside) == (k, m, side)
    assert "Between S = 2 and that point" in caption(7256) and "beyond it the window does" in (
        caption(7256)
    )
    entries = cost.entries(FINE_SIDES, int(k), int(m))
    cheaper_axial = entries["axial"] < entries["window"]
    assert cheaper_axial[(FINE_SIDES > 2) & (FINE_SIDES < float(side))].all()
    assert not cheaper_axial[FINE_SIDES > float(side)].any()
    # Every slider position: one crossing above S = 2 exactly when k ≥ 3 and k² < 2m.
    coarse = np.arange(2.25, 256.01, 0.5)
    low, high = AttentionCost.param.k.bounds
    for kk in range(low, high + 1):
        for mm in range(1, AttentionCost.param.m.bounds[1] + 1, 3):
            expected = [kk * kk / 2] if kk >= int(three) and kk * kk < 2 * mm else []
            got = crossings(kk, mm, coarse)
            assert len(got) == len(expected), (kk, mm, got)
            assert all(abs(g - e) <= 0.25 for g, e in zip(got, expected, strict=True))
            assert cost.crossing(kk, mm) == (expected[0] if expected else None)
    # "For k ≥ 2 they also meet on images at most 2 pixels wide": window ≥ axial somewhere there.
    (two, most) = stated(text, r"For k ≥ (\d+) they also meet on images at most (\d+) pixels wide")
    tiny = np.linspace(1, int(most), 41)
    for kk in range(1, 33):
        for mm in (1, 2, 3, 32, 256):
            e = cost.entries(tiny, kk, mm)
            assert (e["window"] >= e["axial"]).any() == (kk >= int(two)), (kk, mm)
    checked(PIXELS, three, k, m, side, two, most)
    checked("7256", ck, cm, cside)


def test_the_lines_mark_where_window_and_span_are_clipped():
    """The caption and the page name the dotted line at S = k and the dashed one at S = m."""
    figure = AttentionCost(k=9, m=40)
    plot = hv.renderer("bokeh").get_plot(plots(figure)[0])
    spans = {tuple(s.line_dash): s.location for s in plot.state.select({"type": Span})}
    # Bokeh's dash patterns: "dotted" is [2, 4], "dashed" is [6].
    assert spans == {(2, 4): 9, (6,): 40}
    entries = cost.entries(np.arange(1, 257), 9, 40)
    sides = np.arange(1, 257)
    # Left of each line the curve is clipped: the window as global below k, the span below m.
    assert np.array_equal(entries["window"][sides < 9], (sides[sides < 9] ** 4).astype(float))
    assert np.array_equal(entries["axial"][sides < 40], 2.0 * sides[sides < 40] ** 3)
    assert "the dotted line at S = k and the dashed line at S = m" in caption(7256)
    assert (
        "left of the dotted line at S = k, and the span to S left of the dashed line at S = m"
        in (page_text(PIXELS))
    )
    assert "The dotted line marks S = k and the dashed line S = m" in figure.readout()


@counts
def test_full_axial_is_s_over_2_below_global():
    text = page_text(PIXELS)
    times, side = stated(text, r"S/2 times below global: (\d+) times at S = (\d+)")
    found = cost.entries([int(side)], 1, int(side))
    assert found["axial"][0] == 2 * int(side) ** 3
    assert times == fmt(found["global"][0] / found["axial"][0]) == fmt(int(side) / 2)
    checked(PIXELS, times, side)


@counts
def test_one_dimensional_memory_is_a_run_of_raster_positions():
    text = page_text(PIXELS)
    l_q, l_m, width, row, col = stated(
        text,
        r"\(l_q = (\d+), l_m = (\d+), an image (\d+) pixels wide, the query at row (\d+), "
        r"column (\d+)\)",
    )
    defaults = QueryReach()
    assert (int(l_q), int(l_m), int(width), int(row), int(col)) == (
        defaults.query_length,
        defaults.memory_length,
        defaults.side,
        defaults.row,
        defaults.col,
    )
    mask = reach.reach(
        int(width),
        int(row),
        int(col),
        scheme("block-1d"),
        1,
        reach.Geometry(query_length=int(l_q), memory_length=int(l_m)),
    )
    flat = np.flatnonzero(mask.ravel())
    assert np.array_equal(flat, np.arange(flat[0], flat[-1] + 1))  # one run, no gaps
    first_row, first_col = divmod(int(flat[0]), int(width))
    (count,) = stated(
        text, r"first half of row \d+: (\d+) pixels, beginning in the middle of a row"
    )
    assert int(count) == mask.sum() == 24
    assert (first_row, first_col) == (int(row) - 1, int(width) // 2)  # mid-row, not whole rows
    assert "second half of row 7 plus the first half of row 8" in text
    assert "a band of whole rows" not in text
    checked(PIXELS, l_q, l_m, width, row, col, count, "7")


@counts
def test_window_reach_in_the_middle_and_in_a_corner():
    text = page_text(PIXELS)
    one, two = stated(text, r"A (\d+)×\d+ window grows to (\d+)×\d+ after two layers")
    window = scheme("local")

    def box(mask):
        rows, cols = np.nonzero(mask)
        return rows.max() - rows.min() + 1, cols.max() - cols.min() + 1

    middle1 = reach.reach(32, 16, 16, window, 1)
    middle2 = reach.reach(32, 16, 16, window, 2)
    assert box(middle1) == (int(one),) * 2 and mask_is_full_box(middle1)
    assert box(middle2) == (int(two),) * 2 and mask_is_full_box(middle2)
    kept, cells = stated(text, r"keeps only (\d+) of its (\d+) cells")
    assert int(cells) == middle1.sum() and int(kept) == reach.reach(32, 0, 0, window, 1).sum()
    assert int(one) == reach.Geometry().window
    assert "its reach grows by only k − 1 pixels per layer" in text
    assert int(two) - int(one) == int(one) - 1  # k − 1 more pixels across, per layer
    assert "(a 7×7 window)" in caption(4121)
    checked(PIXELS, one, two, kept, cells, "1")
    checked("4121", one)


def mask_is_full_box(mask) -> bool:
    rows, cols = np.nonzero(mask)
    return mask.sum() == (np.ptp(rows) + 1) * (np.ptp(cols) + 1)


def passes(side: int) -> dict[str, np.ndarray]:
    """Who attends whom, (query, key) over raster pixels: a row pass and a column pass, m = S.

    Built from the definitions, independently of ``posviz.maths``.
    """
    rows, cols = np.divmod(np.arange(side * side), side)
    return {"row": rows[:, None] == rows[None, :], "column": cols[:, None] == cols[None, :]}


def through(query: int, *layers: np.ndarray) -> np.ndarray:
    """The pixels whose information reaches ``query`` through ``layers``, first layer first."""
    reached = np.zeros(layers[0].shape[0], bool)
    reached[query] = True
    for attends in reversed(layers):
        reached = (attends[reached]).any(axis=0)
    return reached


def test_axial_is_a_cross_after_one_layer_and_everything_after_two():
    """One axial layer here: a row pass and a column pass side by side (CCNet's criss-cross)."""
    side, row, col = 16, 5, 11
    one = reach.reach(side, row, col, scheme("axial"), 1)
    expected = np.zeros((side, side), bool)
    expected[row, :] = expected[:, col] = True
    assert np.array_equal(one, expected)
    assert reach.reach(side, row, col, scheme("axial"), 2).all()
    # The same from the passes' attention matrices.
    lines = passes(side)
    side_by_side = lines["row"] | lines["column"]
    query = row * side + col
    assert np.array_equal(through(query, side_by_side).reshape(side, side), one)
    assert through(query, side_by_side, side_by_side).all()
    # A row pass, then a column pass (Axial-DeepLab, Axial Transformer) reaches the same,
    # and one pass alone does not.
    assert through(query, lines["row"], lines["column"]).all()
    assert through(query, lines["row"]).sum() == side
    text = page_text(PIXELS)
    assert "Each pass has a span of m pixels on its axis" in text
    assert "a row pass followed by a column pass already reaches the whole image" in text
    assert (
        "Its left grid is one such layer, a cross; its right grid is two, the whole image" in text
    )
    assert "Axial lights a cross after one layer and the whole image after two" in text
    assert "each query's whole cross, its row and its column, in one layer" in caption(4121)
    assert "then along its column" not in text  # the old, sequential definition


def test_the_reach_figure_shows_full_rows_and_columns():
    """The reach figure has no span: its axial scheme is m = S, and the page and caption say so."""
    figure = QueryReach(scheme="axial", side=24, row=3, col=20)
    assert not any("span" in name for name in figure.sliders())
    assert figure.reached(1).sum() == 2 * 24 - 1  # whole row and whole column
    assert "it shows m = S and has no span slider" in page_text(PIXELS)
    assert "*axial* over full rows and columns (m = S)" in caption(4121)


@counts
def test_two_side_by_side_layers_cost_twice_the_sequential_pair():
    """Two criss-cross layers: 4·S²·m; a row pass then a column pass: 2·S²·m (full spans)."""
    text = page_text(PIXELS)
    assert (
        "it takes two such layers to reach everything, 4·S²·m, twice the cost of the "
        "sequential pair" in text
    )
    assert (
        "a row pass followed by a column pass already reaches the whole image, for 2·S²·m" in text
    )
    assert "a row pass and a column pass of span m, or, one key fewer per query" in caption(7256)
    assert "at about twice the cost" in caption(4121)
    for side in (8, 16, 24):
        lines = passes(side)
        one_pass = int(lines["row"].sum())
        assert one_pass == side**2 * side == int(lines["column"].sum())  # S²·m at m = S
        layer = cost.entries([side], 1, side)["axial"][0]  # the figure's count
        assert layer == 2 * one_pass  # one layer: both passes, either arrangement
        sequential = int(lines["row"].sum() + lines["column"].sum())
        assert 2 * layer == 4 * side**3 == 2 * sequential
    checked(PIXELS, "4")


# The figure's defaults, where the page sends the reader to the corners.
CORNERS = {
    "top-left": (0, 0),
    "top-right": (0, 15),
    "bottom-left": (15, 0),
    "bottom-right": (15, 15),
}


def reach_count(scheme_name: str, row: int, col: int) -> int:
    figure = QueryReach(scheme=scheme_name, row=row, col=col)
    return int(figure.reached(1).sum())


def clipping_edges(scheme_name: str) -> set[str]:
    """The image edges whose middle query reaches fewer pixels than the image's middle one.

    The middle of an edge, so that a corner (on two edges) does not blame both.
    """
    figure = QueryReach()
    last, half = figure.side - 1, figure.side // 2
    full = reach_count(scheme_name, half, half)
    middles = {"top": (0, half), "bottom": (last, half), "left": (half, 0), "right": (half, last)}
    return {edge for edge, at in middles.items() if reach_count(scheme_name, *at) < full}


def test_which_edges_clip_which_scheme():
    """§4 and the caption: the window at all four edges, 1D at the top, 2D at top and sides."""
    assert QueryReach().side == 16
    assert clipping_edges("local") == {"top", "bottom", "left", "right"}
    assert clipping_edges("block-1d") == {"top"}
    assert clipping_edges("block-2d") == {"top", "left", "right"}
    assert clipping_edges("axial") == clipping_edges("global") == set()
    assert (
        "the window at all four, the 1D block only at the top (its memory runs backwards in "
        "raster order), the 2D block at the top and the sides" in caption(4121)
    )
    text = page_text(PIXELS)
    assert "so only the top of the image cuts it" in text
    assert "never down, so the top and the sides cut it" in text
    assert "cut off at the edge" not in text  # the old claim, true at the top corners only


@counts
def test_corner_counts_per_scheme():
    text = page_text(PIXELS)
    kept, cells = stated(text, r"The window keeps only (\d+) of its (\d+) cells in every corner")
    assert {reach_count("local", *at) for at in CORNERS.values()} == {int(kept)}
    assert reach_count("local", 8, 8) == int(cells)
    own, top_right, bottom = stated(
        text,
        r"in the top-left corner the query keeps just its own block of (\d+) pixels, in the "
        r"top-right (\d+), and in both bottom corners all (\d+)",
    )
    figure = QueryReach()
    assert int(own) == figure.query_length == reach_count("block-1d", *CORNERS["top-left"])
    assert int(top_right) == reach_count("block-1d", *CORNERS["top-right"])
    assert int(bottom) == reach_count("block-1d", 8, 8)
    assert {reach_count("block-1d", *CORNERS[c]) for c in ("bottom-left", "bottom-right")} == {
        int(bottom)
    }
    top, full, low = stated(
        text,
        r"a top corner keeps (\d+) of its (\d+) pixels, a bottom corner (\d+), and the middle "
        r"of the bottom edge all \d+",
    )
    (edge_middle,) = stated(text, r"and the middle of the bottom edge all (\d+)")
    at_most = (figure.block_height + figure.memory_above) * (
        figure.block_width + 2 * figure.memory_side
    )
    assert int(full) == int(edge_middle) == at_most == reach_count("block-2d", 8, 8)
    assert int(edge_middle) == reach_count("block-2d", 15, 8)
    assert {reach_count("block-2d", *CORNERS[c]) for c in ("top-left", "top-right")} == {int(top)}
    assert {reach_count("block-2d", *CORNERS[c]) for c in ("bottom-left", "bottom-right")} == {
        int(low)
    }
    (cross,) = stated(text, r"The axial cross keeps all (\d+) of its pixels wherever the query is")
    side = figure.side
    assert (
        {reach_count("axial", r, c) for r in range(0, side, 3) for c in range(0, side, 5)}
        == {int(cross)}
        == {2 * side - 1}
    )
    checked(PIXELS, kept, cells, own, top_right, bottom, top, full, low, edge_middle, cross)


def test_stand_alone_self_attention_outperformed_its_baseline():
    """Ramachandran et al. (2019), abstract: 12 % fewer FLOPS, 29 % fewer parameters."""
    text = page_text(PIXELS)
    flops, params = stated(text, r"using (\d+) % fewer FLOPs and (\d+) % fewer parameters")
    assert "outperformed its ResNet-50 baseline" in text and "competitive" not in text
    assert (flops, params) == ("12", "29")


# --- Query, Key, Value ---------------------------------------------------------------


def vector(text: str, name: str) -> np.ndarray:
    (values,) = stated(text, re.escape(name) + r" = \((-?\d+, -?\d+)\)")
    return np.array([float(v) for v in values.split(",")])


def numbers(found: str) -> list[str]:
    return re.findall(r"\d+\.\d+", found)


@counts
def test_worked_example_by_hand():
    text = page_text(QKV)
    (d_k,) = stated(text, r"Take three tokens and d_k = (\d+)\.")
    q = vector(text, "q")
    keys = np.array([vector(text, f"k{s}") for s in "₁₂₃"])
    values = np.array([vector(text, f"v{s}") for s in "₁₂₃"])
    assert q.shape == (int(d_k),) and keys.shape == (3, int(d_k))

    scores = keys @ q
    assert stated(text, r"q·k₁ = 1·1 \+ 2·0 = (\d+), q·k₂ = (\d+) and q·k₃ = (\d+)\.") == tuple(
        fmt(s) for s in scores
    )
    (root,) = stated(text, r"√d_k = √2 ≈ (\d\.\d\d)")
    assert root == fmt(math.sqrt(int(d_k)), 2)
    scaled = scores / math.sqrt(int(d_k))
    (found,) = stated(text, r"the scaled scores are ([\d., and]+?)\.\n")
    assert numbers(found) == [fmt(s, 2) for s in scaled]
    exps = np.exp(scaled)
    exps_found, sum_found = stated(
        text, r"Their exponentials are ([\d., and]+?), which add up to (\d+\.\d+)\."
    )
    assert numbers(exps_found) == [fmt(e, 2) for e in exps] and sum_found == fmt(exps.sum(), 2)
    weights = exps / exps.sum()
    (found,) = stated(text, r"gives the weights ([\d., and]+?)\.\n")
    assert numbers(found) == [fmt(w, 2) for w in weights]
    output = weights @ values
    (found,) = stated(text, r"0\.58·\(0, 1\) = \((\d\.\d\d, \d\.\d\d)\)")
    assert numbers(found) == [fmt(o, 2) for o in output]
    # Worked by hand from the rounded weights, the blend gives the same two decimals.
    rounded = np.round(weights, 2) @ values
    assert [fmt(o, 2) for o in rounded] == numbers(found)
    rows = re.findall(r"^\| (\d) \| \((\d), (\d)\) \| \((\d), (\d)\) \| (.*) \|$", text, re.M)
    assert len(rows) == 3
    for n, (token, k_a, k_b, v_a, v_b, rest) in enumerate(rows):
        assert int(token) == n + 1
        assert [float(k_a), float(k_b)] == list(keys[n]) and [float(v_a), float(v_b)] == list(
            values[n]
        )
        assert [cell.strip() for cell in rest.split("|")] == [
            fmt(scores[n]),
            fmt(scaled[n], 2),
            fmt(exps[n], 2),
            fmt(weights[n], 2),
        ]
    unscaled = np.exp(scores) / np.exp(scores).sum()
    (found,) = stated(text, r"Skip the scaling and the weights become ([\d., and]+?):")
    assert numbers(found) == [fmt(w, 2) for w in unscaled]
    assert unscaled.max() > weights.max()  # unscaled, the top score takes a bigger share
    checked(QKV, d_k, *(fmt(s) for s in scores), root, *(fmt(x, 2) for x in scaled))
    checked(QKV, *(fmt(e, 2) for e in exps), sum_found, *(fmt(w, 2) for w in weights))
    checked(QKV, *(fmt(o, 2) for o in output), *(fmt(w, 2) for w in unscaled))


@counts
def test_typical_score_at_width_64():
    text = page_text(QKV)
    (d_k, spread) = stated(text, r"With d_k = (\d+), a typical score is already about ±(\d+)")
    assert fmt(math.sqrt(int(d_k))) == spread
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 20000, int(d_k)))
    assert np.std((q * k).sum(axis=1)) == pytest.approx(int(spread), rel=0.03)
    checked(QKV, d_k, spread)


def test_the_dot_product_cannot_tell_before_from_after():
    """Σ cos(ωᵢ·k) is even in k: PE(p)·PE(p+k) = PE(p)·PE(p−k)."""
    text = page_text(AIAYN)
    assert "since cosine is even, Σᵢ cos(ωᵢ·k) takes the same value at −k as at k" in text
    ks = np.arange(0, 60)
    for d_model in (16, 128, 512):
        assert encoding.dot_closed_form(-ks, d_model) == pytest.approx(
            encoding.dot_closed_form(ks, d_model)
        )
        for pos in (60, 75):  # p − k stays a valid position
            assert encoding.dot_from_rows(pos, -ks, d_model) == pytest.approx(
                encoding.dot_from_rows(pos, ks, d_model)
            )


def test_every_symbol_of_the_encoding_is_defined():
    text = page_text(AIAYN)
    (top,) = stated(text, r"i = 0, 1, …, d_model/2 − (\d)")
    d_model = 128
    assert len(encoding.frequencies(d_model)) == d_model // 2 - int(top) + 1
    assert "The paper gives no reason for the factor √d_model" in text
    assert "dimensions 2i and 2i + 1, as hand i of a clock" in text


def test_softmax_is_written_on_the_scaled_scores():
    """Step 3 in the scaled form of Vaswani et al. §3.2.1, Eq. 1; read literally it gives 0.14."""
    text = page_text(QKV)
    (formula,) = stated(text, r"\*\*Normalise\.\*\* (αⱼ = [^,]+),")
    assert formula == "αⱼ = exp(sⱼ/√d_k) / Σₗ exp(sₗ/√d_k)"
    assert "αⱼ = exp(sⱼ) / Σₗ exp(sₗ)" not in text
    # Evaluate the formula as written on the worked example's scores: the table's weights.
    scores = np.array([1.0, 2.0, 3.0])
    literal = np.exp(scores / math.sqrt(2)) / np.exp(scores / math.sqrt(2)).sum()
    assert [fmt(w, 2) for w in literal] == ["0.14", "0.28", "0.58"]


def test_claims_are_qualified_and_sourced():
    qkv, aiayn = page_text(QKV), page_text(AIAYN)
    before = page_text("attention-before-transformers")
    assert "a comparison the authors take from Britz et al. (2017)" in qkv
    assert "most of its weight on one key" in qkv and "almost all" not in qkv
    assert "A model made only of unmasked attention has to be given the order" in qkv
    assert "Irie et al. (2019) and Haviv et al. (2022)" in qkv
    assert "PyTorch's `nn.Transformer` and fairseq do (the authors' own tensor2tensor" in aiayn
    assert "most implementations" not in aiayn
    assert (
        "41.8 in Table 2 of the arXiv version (v5); its §6.1, like the NIPS paper, reports 41.0"
        in (aiayn)
    )
    assert "Kalchbrenner and Blunsom (2013)" in before
    assert "The first neural translation systems" not in before
    # Bahdanau et al. is cited as ICLR 2015 wherever a year is given.
    assert "Bahdanau, Cho and Bengio (ICLR 2015)" in before
    for slug in content.load(CONTENT).pages:
        assert not re.search(r"Bahdanau[^.]*\(2014\)", page_text(slug)), slug
    assert "Their three content-based scores" in before and "*location*-based score" in before


def test_a_learner_finds_every_symbol_defined():
    before, pixels = page_text("attention-before-transformers"), page_text(PIXELS)
    assert "W and U are learned matrices" in before and "the learned vector v" in before
    assert "wrote h̄ₛ for the encoder state at source position s" in before
    assert "where d is the width of the layer's output (d_out in the paper)" in pixels
    assert "an embedding r, made by concatenating" in pixels
    assert "three tables of embeddings indexed by the offset p − o" in pixels
    assert "Position enters only through p − o, so here too the output moves with the image" in (
        pixels
    )
    assert "softmax normalises so that the weights sum to 1" in pixels
    assert "that weight scales every channel of the neighbour's value alike" in pixels
    assert "On this site one axial layer is one row pass plus one column pass" in pixels


# The seed's headings of the sections each figure comes from: facts of the site.
SEED_HEADINGS = {
    96: (AIAYN, "2. The Encoder Layer"),
    710: (AIAYN, "4. Embeddings and Positional Encoding"),
    7256: (PIXELS, "1. Why n² Kills Images"),
    4121: (PIXELS, "4. Axes: Attention One Axis at a Time"),
}


def test_the_seed_headings_stand():
    site = content.load(CONTENT)
    for figure_id, (slug, heading) in SEED_HEADINGS.items():
        [section] = [s for s in site.pages[slug].sections if figure_id in s.figures]
        assert section.heading == heading, figure_id


# Runs of this many words the seed has may not appear in our text, but for its facts.
RUN = 8
SEED_RUNS = Path(__file__).parent / "data" / "seed_runs.txt"


def runs(text: str) -> dict[str, str]:
    """Each run of RUN words in ``text`` (lower case), by the digest the seed's are kept as."""
    import hashlib

    words = re.findall(r"[\w’'\-]+", text.lower())
    found = {}
    for n in range(len(words) - RUN + 1):
        run = " ".join(words[n : n + RUN])
        found[hashlib.sha256(run.encode()).hexdigest()[:16]] = run
    return found


def test_no_run_of_eight_words_is_the_seeds_but_its_facts():
    """Every sentence is ours: the seed's titles, headings and "From" lines are facts to keep,
    anything else it says in eight words running is not ours to copy. The seed itself is kept
    only as digests of its runs (tests/data/seed_runs.txt)."""
    seed = {line for line in SEED_RUNS.read_text("utf-8").split() if not line.startswith("#")}
    seed.discard("sha256")
    site = content.load(CONTENT)
    facts = [f"{page.title} › {s.heading}" for page in site.pages.values() for s in page.sections]
    facts += [f"{cls.figure_id} {cls.title}" for cls in FIGURES.values()]
    allowed = {digest for fact in facts for digest in runs(fact)}
    root = Path(__file__).resolve().parents[1]
    ours = [*root.glob("content/**/*.md"), *root.glob("src/posviz/**/*.py")]
    ours += [*root.glob("src/posviz/**/*.html"), root / "README.md"]
    copied = {
        str(path.relative_to(root)): run
        for path in ours
        for digest, run in runs(path.read_text("utf-8")).items()
        if digest in seed and digest not in allowed
    }
    assert copied == {}
    assert len(seed) > 300  # the digests are there to compare with


# --- captions ------------------------------------------------------------------------


@counts
def test_caption_96_numbers():
    text = caption(96)
    paper = stated(text, r"Table 3 gives (\d+) M and (\d+) M without a breakdown")
    ours = stated(text, r"this count gives (\d+\.\d) M and (\d+\.\d) M")
    assert paper == ("65", "213")
    assert ours == (fmt(total(BASE) / 1e6, 1), fmt(total(BIG) / 1e6, 1))
    (embedding,) = stated(text, r"holds (\d+) % of the base model")
    counts = budget.parameter_counts(**BASE)
    assert embedding == fmt(100 * counts["embedding"] / total(BASE))
    assert "feed-forward block holds two thirds of the weights when d_ff = 4·d_model" in text
    checked("96", *paper, *ours, embedding)


@counts
def test_caption_710_numbers_and_hand_count():
    text = caption(710)
    assert "Hand 0, with ω₀ = 1, is back at its start after 2π ≈ 6.28 positions" in text
    assert fmt(2 * math.pi / encoding.frequencies(128)[0], 2) == "6.28"
    assert "four hands i (the sine dimensions 2i)" in text
    # The legend names hands as the prose does: hand i, not dim 2i.
    frame = ClockHands().frame()
    labels = [frame[f"hand{n}:label"]["label"] for n in range(4)]
    assert "hand4:label" not in frame
    assert labels[0].startswith("hand 0: period 6.3")
    assert [label.split(":")[0] for label in labels] == [
        f"hand {i}" for i in encoding.hand_indices(128)
    ]
    checked("710", "1", "6.28", "0", "2")


# --- every number is accounted for ---------------------------------------------------

# Facts quoted from the papers, with where each was checked.
CITED = {
    AIAYN: {
        "2017": "Vaswani et al. 2017",
        "6": "Table 3: N = 6",
        "512": "Table 3: base d_model",
        "2048": "Table 3: base d_ff",
        "8": "Table 3: base h = 8",
        "64": "Table 3: d_k = 64",
        "1024": "Table 3: big d_model",
        "4096": "Table 3: big d_ff",
        "16": "Table 3: big h = 16",
        "37": "§5.1: about 37,000 BPE tokens (37 K biases: checked)",
        "37,000": "§5.1: English–German byte-pair vocabulary",
        "32,000": "§5.1: English–French word-piece vocabulary",
        "2014": "§5.1: WMT 2014",
        "4.5": "§5.1: 4.5 million English–German sentence pairs",
        "36": "§5.1: 36 million English–French sentences",
        "4,000": "§5.3: warmup_steps = 4000",
        "0.1": "§5.4: P_drop = 0.1 (base), ε_ls = 0.1",
        "100,000": "§5.2: base 100,000 steps",
        "12": "§5.2: 12 hours",
        "300,000": "§5.2: big 300,000 steps",
        "3.5": "§5.2: 3.5 days",
        "27.3": "Table 2: base EN-DE BLEU",
        "28.4": "Table 2: big EN-DE BLEU",
        "41.8": "arXiv v5, Table 2: big EN-FR BLEU",
        "41.0": "arXiv v5 §6.1 and the NIPS 2017 paper: big EN-FR BLEU",
        "2018": "Shaw, Uszkoreit and Vaswani 2018, relative position representations",
        "2019": "Yan et al. 2019, TENER: the sinusoids' dot product is blind to direction",
        "2022": "Press, Smith and Lewis 2022, Train Short, Test Long, Figure 1",
        "18": "checked: attention blocks",
    },
    PIXELS: {
        "2018": "Parmar et al. 2018",
        "2019": "Ramachandran et al. 2019; Ho et al. 2019; Huang et al. 2019; Child et al. 2019",
        "2020": "Wang et al. 2020",
        "12": "Ramachandran et al. 2019, abstract: 12 % fewer FLOPS",
        "29": "Ramachandran et al. 2019, abstract: 29 % fewer parameters",
    },
    "attention-before-transformers": {
        "2013": "Kalchbrenner and Blunsom 2013, Recurrent Continuous Translation Models",
        "2014": "Sutskever et al. 2014, Cho et al. 2014",
        "2015": "Bahdanau et al., ICLR 2015; Luong et al. 2015",
    },
    QKV: {
        "2017": "Vaswani et al. 2017 (Eq. 1 and §3.2.1); Britz et al. 2017, cited there",
        "2019": "Irie et al. 2019, Language Modeling with Deep Transformers",
        "2022": "Haviv et al. 2022, Transformer LMs without positional encodings",
    },
}
# Numbers that are part of a formula or a list, not a claim about a quantity.
FORMULA = {
    AIAYN: {"0", "1", "2", "4", "8", "10000"},  # 4·d², 8·d², d_model/2, k = 0, h = 1 …
    PIXELS: {"2", "1"},  # 2·S²·m, 2·w_m, d/2, a cross of 2S − 1 keys
    QKV: {"1", "2", "3", "0", "4"},  # step numbers, q·k₁ = 1·1 + 2·0, the vectors
    "attention-before-transformers": {"1", "2", "3"},  # step numbers
}


@functools.cache
def declared() -> dict[str, dict[str, str]]:
    """Numbers the content declares with where they come from: a page's ``numbers:`` and
    a figure's beside its caption (``Figure.numbers``): a figure view that shows it, which
    `posviz check` computes again, or a named source or reason."""
    site = content.load(CONTENT)
    found = {slug: dict(page.numbers) for slug, page in site.pages.items() if page.numbers}
    found.update({str(fid): dict(cls.numbers) for fid, cls in FIGURES.items() if cls.numbers})
    return found


def test_a_number_declared_from_a_figure_must_be_what_it_shows():
    """What `posviz check` compares a declared number with (test_content checks the check)."""
    assert "1.00" in content.shown_by("figure-7256?k=8&m=32")  # the ratio k²/2m where they tie
    assert "2.00" not in content.shown_by("figure-7256?k=8&m=32")
    assert "2.00" in content.shown_by("figure-7256?k=8&m=16")


@functools.cache
def sources() -> dict[str, str]:
    site = content.load(CONTENT)
    found = {slug: page_text(slug) for slug in site.pages}
    found.update({f"topic {slug}": topic.text + topic.intro for slug, topic in site.topics.items()})
    found.update({str(fid): caption(fid) for fid in FIGURES})
    return found


def test_no_stale_entries():
    """A cited or formula number that the text no longer has is removed here too (a declared
    one that the page no longer states is `posviz check`'s to refuse)."""
    texts = sources()
    for source, numbers_cited in CITED.items():
        assert set(numbers_cited) <= tokens(texts[source]), source
    for source, numbers_formula in FORMULA.items():
        assert numbers_formula <= tokens(texts[source]), source


def where_to_declare(source: str) -> str:
    """Where the author of ``source`` declares a number (a page, a topic or a caption)."""
    if source.isdigit():
        module = inspect.getsourcefile(FIGURES[int(source)])
        return f"numbers = {{number: figure view or reason}} in figure {source}'s class ({module})"
    return f"the front matter of {source}: numbers: {{number: figure view or source}}"


@pytest.mark.slow  # runs every check of the module (once per process)
@pytest.mark.parametrize("source", sorted(sources()))
def test_every_number_is_accounted_for(source):
    """Every check above is run here again (``verified``), so this test needs no other to
    have run first, and holds in any order and alone. One case per page, topic and
    caption, so ``--figure ID`` runs its caption's."""
    known = verified().get(source, set()) | set(CITED.get(source, {}))
    known |= FORMULA.get(source, set()) | set(declared().get(source, {}))
    missing = sorted(tokens(sources()[source]) - known)
    assert missing == [], (
        f"{source} states {', '.join(missing)}, which no check computes and nothing declares: "
        f"declare each in {where_to_declare(source)}, or add a check in tests/test_prose.py"
    )


def test_the_checks_that_count_are_the_tests_that_check():
    """Each test that verifies a number is one the accounting test runs, and only those."""
    module = __import__(__name__, fromlist=["*"])
    reporting = {
        name
        for name, test in vars(module).items()
        if name.startswith("test_") and re.search(r"^\s+checked\(", inspect.getsource(test), re.M)
    }
    assert {check.__name__ for check in NUMBER_CHECKS} == reporting
