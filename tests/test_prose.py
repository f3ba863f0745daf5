"""Checked numbers: every number the pages and captions state is either computed
again here from ``posviz.maths`` (or by hand for the worked example), or is a
fact quoted from a named paper, or is part of a formula or a name.

Each check finds its sentence in the text, reads the numbers out of it and
compares them with a fresh computation, so a formula change that leaves the
prose behind fails here. ``test_every_number_is_accounted_for`` then makes a
new number in the prose fail until it gets a check or a source.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from posviz import content
from posviz.figures import FIGURES, ClockHands, ParameterBudget, QueryReach
from posviz.figures.parameter_budget import PRESETS
from posviz.maths import budget, cost, encoding, reach

CONTENT = Path(__file__).resolve().parents[1] / "content"
QKV, AIAYN, PIXELS = "query-key-value", "attention-is-all-you-need", "attention-meets-pixels"
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")
# Not quantities: references to sections and tables, and names with numbers in them.
REFERENCES = re.compile(r"§\d+(?:\.\d+)*|Table \d+|section \d+|ResNet-50|32-bit|10⁹|log10")


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


# Every check adds the numbers it verified, per source, to CHECKED.
CHECKED: dict[str, set[str]] = {}


def checked(source: str, *numbers: str):
    CHECKED.setdefault(source, set()).update(numbers)


# --- Attention Is All You Need -------------------------------------------------------

BASE, BIG = PRESETS["base"], PRESETS["big"]


def total(preset) -> int:
    return sum(budget.parameter_counts(**preset).values())


def test_presets_are_the_papers_table_3_sizes():
    """Vaswani et al. (2017), Table 3 (sizes) and §5.1 (the 37,000-token BPE vocabulary)."""
    assert (BASE["d_model"], BASE["d_ff"], BASE["n_layers"]) == (512, 2048, 6)
    assert (BIG["d_model"], BIG["d_ff"], BIG["n_layers"]) == (1024, 4096, 6)
    assert BASE["vocab_size"] == BIG["vocab_size"] == 37000


def test_totals_beside_the_papers():
    text = page_text(AIAYN)
    paper_base, paper_big = stated(text, r"Table 3 lists (\d+) M parameters for base and (\d+) M")
    assert (paper_base, paper_big) == ("65", "213")  # Vaswani et al. (2017), Table 3
    ours = stated(text, r"This count gives (\d+\.\d) M and (\d+\.\d) M")
    assert ours == (fmt(total(BASE) / 1e6, 1), fmt(total(BIG) / 1e6, 1)) == ("63.1", "214.2")
    # The figure must not look wrong to a reader of Table 3: within 5 % of the paper.
    assert abs(total(BASE) / 65e6 - 1) < 0.05 and abs(total(BIG) / 213e6 - 1) < 0.05
    checked(AIAYN, paper_base, paper_big, *ours)


def test_projection_biases_are_about_37k_in_the_base_model():
    text = page_text(AIAYN)
    per_block, blocks, thousands = stated(
        text, r"4·(\d+) per block over the (\d+) attention blocks of the base model, about (\d+) K"
    )
    d = BASE["d_model"]
    bias_per_block = budget.attention_block(d) - 4 * d * d
    counts = budget.parameter_counts(**BASE)
    attention_blocks = sum(
        counts[role] // budget.attention_block(d) for role in budget.ROLES if "attention" in role
    )
    assert bias_per_block == 4 * int(per_block)
    assert attention_blocks == int(blocks) == 18
    assert fmt(attention_blocks * bias_per_block / 1000) == thousands == "37"
    checked(AIAYN, per_block, blocks, thousands)


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


def test_layers_grow_fourfold_and_the_embedding_doubles():
    base, big = budget.parameter_counts(**BASE), budget.parameter_counts(**BIG)
    layer = big["encoder feed-forward"] / base["encoder feed-forward"]
    attention = big["encoder self-attention"] / base["encoder self-attention"]
    assert 3.9 < layer < 4.1 and 3.9 < attention < 4.1
    assert big["embedding"] / base["embedding"] == 2
    assert "the layer bars grow about fourfold" in page_text(AIAYN)
    assert "the layer bars grow about fourfold and the embedding only doubles" in caption(96)


def test_heads_do_not_change_the_count():
    """Nothing in the count depends on h: the page says a slider for h would move nothing."""
    assert "h" not in ParameterBudget().sliders()
    assert "a slider for h would move nothing" in page_text(AIAYN)


def test_clock_hands_numbers():
    text = page_text(AIAYN)
    omegas = encoding.frequencies(128)
    assert "ω₀ = 1 and completes a turn every 2π ≈ 6.28 positions" in text
    assert omegas[0] == 1 and fmt(2 * math.pi / omegas[0], 2) == "6.28"
    (base,) = stated(text, r"stretch geometrically towards (\d+)·2π")
    assert float(base) == encoding.BASE
    assert np.all(np.diff(np.log(omegas)) == pytest.approx(np.log(omegas[1] / omegas[0])))
    checked(AIAYN, "1", "6.28", base)


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


def test_window_ratio_at_224():
    text = page_text(PIXELS)
    side, k, ratio = stated(text, r"at S = (\d+) a (\d+)×\d+ window needs ([\d,]+) times fewer")
    found = cost.entries([int(side)], int(k), 1)
    assert ratio == fmt(found["global"][0] / found["window"][0]) == "1,024"
    checked(PIXELS, side, k, ratio)


def test_window_and_axial_tie():
    text = page_text(PIXELS)
    k, m = stated(text, r"\(for example k = (\d+) and m = (\d+)\)")
    assert cost.window_to_axial(int(k), int(m)) == 1
    sides = np.array([64.0, 128.0, 256.0])
    found = cost.entries(sides, int(k), int(m))
    assert np.array_equal(found["window"], found["axial"])
    k7, m7 = stated(caption(7256), r"Try k = (\d+) and m = (\d+) first")
    assert cost.window_to_axial(int(k7), int(m7)) == 1
    checked(PIXELS, k, m)
    checked("7256", k7, m7)


def test_full_axial_is_s_over_2_below_global():
    text = page_text(PIXELS)
    times, side = stated(text, r"S/2 times below global: (\d+) times at S = (\d+)")
    found = cost.entries([int(side)], 1, int(side))
    assert found["axial"][0] == 2 * int(side) ** 3
    assert times == fmt(found["global"][0] / found["axial"][0]) == fmt(int(side) / 2)
    checked(PIXELS, times, side)


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


def test_axial_is_a_cross_after_one_layer_and_everything_after_two():
    """One axial layer is row and column attention side by side (CCNet's criss-cross)."""
    side, row, col = 16, 5, 11
    one = reach.reach(side, row, col, scheme("axial"), 1)
    expected = np.zeros((side, side), bool)
    expected[row, :] = expected[:, col] = True
    assert np.array_equal(one, expected)
    assert reach.reach(side, row, col, scheme("axial"), 2).all()
    # A row pass, then a column pass (Axial-DeepLab, Axial Transformer) reaches the same.
    row_pass = np.zeros((side, side), bool)
    row_pass[row, :] = True
    column_after_row = np.broadcast_to(row_pass.any(axis=0), (side, side))
    assert column_after_row.all()
    text = page_text(PIXELS)
    assert "row attention and the column attention run side by side" in text
    assert "Axial lights a cross after one layer and the whole image after two" in text
    assert "row and column attention side by side in one layer" in caption(4121)
    assert "then along its column" not in text  # the old, sequential definition


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


def test_typical_score_at_width_64():
    text = page_text(QKV)
    (d_k, spread) = stated(text, r"With d_k = (\d+), a typical score is already about ±(\d+)")
    assert fmt(math.sqrt(int(d_k))) == spread
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 20000, int(d_k)))
    assert np.std((q * k).sum(axis=1)) == pytest.approx(int(spread), rel=0.03)
    checked(QKV, d_k, spread)


# --- captions ------------------------------------------------------------------------


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


def test_caption_710_numbers_and_hand_count():
    text = caption(710)
    assert "ω₀ = 1 and turns once every 2π ≈ 6.28 positions" in text
    assert "sine dimensions of four hands" in text
    checked("710", "1", "6.28", "0")


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
        "41.8": "Table 2: big EN-FR BLEU",
        "18": "checked: attention blocks",
    },
    PIXELS: {
        "2018": "Parmar et al. 2018",
        "2019": "Ramachandran et al. 2019; Ho et al. 2019; Huang et al. 2019",
        "2020": "Wang et al. 2020",
        "12": "Ramachandran et al. 2019, abstract: 12 % fewer FLOPS",
        "29": "Ramachandran et al. 2019, abstract: 29 % fewer parameters",
    },
    "attention-before-transformers": {
        "2014": "Sutskever et al., Cho et al., Bahdanau et al. 2014",
        "2015": "Luong et al. 2015",
    },
}
# Numbers that are part of a formula or a list, not a claim about a quantity.
FORMULA = {
    AIAYN: {"0", "1", "2", "4", "8", "10000"},  # 4·d², 8·d², d_model/2, k = 0, h = 1 …
    PIXELS: {"2"},  # 2·S²·m, 2·w_m, d/2
    QKV: {"1", "2", "3", "0", "4"},  # step numbers, q·k₁ = 1·1 + 2·0, the vectors
    "attention-before-transformers": {"1", "2", "3"},  # step numbers
    "710": {"2"},  # d_model/2
    "7256": {"2"},  # 2·S²·m, k² = 2m
    "96": {"4"},  # d_ff = 4·d_model
    "4121": {"1", "2"},  # 1D, 2D
}


def declared() -> dict[str, dict[str, str]]:
    """Numbers the content declares with where they come from: a page's ``numbers:``
    (a figure view that shows it, checked below, or a named source)."""
    site = content.load(CONTENT)
    return {slug: dict(page.numbers) for slug, page in site.pages.items() if page.numbers}


def shown_by(view: str) -> set[str]:
    """The numbers a figure view (``figure-5?n=4``) states: readout, description, table."""
    from urllib.parse import parse_qsl

    from posviz.compose.links import parse

    figure_id, query = content.FIGURE_VIEW.fullmatch(view).groups()
    cls = FIGURES[int(figure_id)]
    settings = dict(parse_qsl(query or "", keep_blank_values=True))
    figure = cls(**{name: parse(raw, cls.param[name]) for name, raw in settings.items()})
    _, _, rows = figure.table()
    text = " ".join([figure.readout(), figure.describe(), *map(str, rows)])
    return {f"{int(n):,}" if n.isdigit() and len(n) > 3 else n for n in tokens(text)} | tokens(text)


def test_numbers_a_page_takes_from_a_figure_are_what_the_figure_shows():
    for slug, numbers in declared().items():
        for number, origin in numbers.items():
            if content.FIGURE_VIEW.fullmatch(origin):
                assert number in shown_by(origin), (
                    f"{slug}: {number} is declared from {origin}, which shows "
                    f"{sorted(shown_by(origin))}"
                )
                checked(slug, number)


def test_a_number_declared_from_a_figure_must_be_what_it_shows():
    assert "1.00" in shown_by("figure-7256?k=8&m=32")  # the ratio k²/2m where they tie
    assert "2.00" not in shown_by("figure-7256?k=8&m=32")
    assert "2.00" in shown_by("figure-7256?k=8&m=16")


def sources() -> dict[str, str]:
    site = content.load(CONTENT)
    found = {slug: page_text(slug) for slug in site.pages}
    found.update({f"topic {slug}": topic.text + topic.intro for slug, topic in site.topics.items()})
    found.update({str(fid): caption(fid) for fid in FIGURES})
    return found


def tokens(text: str) -> set[str]:
    return set(NUMBER.findall(REFERENCES.sub(" ", text)))


@pytest.fixture(scope="module")
def all_checks_ran():
    """Run every check above once, so CHECKED is complete whatever was selected."""
    for name, function in list(globals().items()):
        if name.startswith("test_") and name != "test_every_number_is_accounted_for":
            function()


def test_every_number_is_accounted_for(all_checks_ran):
    unexplained = {}
    in_content = declared()
    for source, text in sources().items():
        known = CHECKED.get(source, set()) | set(CITED.get(source, {})) | FORMULA.get(source, set())
        known |= set(in_content.get(source, {}))
        missing = tokens(text) - known
        if missing:
            unexplained[source] = sorted(missing)
    assert unexplained == {}, (
        "numbers in the prose that no test checks and no paper is cited for "
        "(declare it in the page's front matter, numbers: {number: figure view or source}, "
        "or add a check in tests/test_prose.py or a source in CITED)"
    )


def test_no_stale_entries():
    """A cited or formula number that the text no longer has is removed here too."""
    texts = sources()
    for source, numbers_cited in CITED.items():
        assert set(numbers_cited) <= tokens(texts[source]), source
    for source, numbers_formula in FORMULA.items():
        assert numbers_formula <= tokens(texts[source]), source
    for source, numbers_declared in declared().items():
        stale = set(numbers_declared) - tokens(texts[source])
        assert not stale, f"{source}: numbers: declares {sorted(stale)}, which the text lacks"
