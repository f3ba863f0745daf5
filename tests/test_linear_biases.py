"""Figure 2108 (ALiBi): the slopes, the weights and the shares, each computed here apart."""

import math

import pytest

from posviz.figures import LinearBiases
from posviz.figures import linear_biases as alibi


def by_hand(heads: int) -> list[float]:
    """The reference get_slopes (ofirpress/attention_with_linear_biases), written out.

    get_slopes_power_of_2(n): start = 2^(−2^−(log₂ n − 3)) = 2^(−8/n), ratio = start,
    [start·ratio^k for k in 0..n−1]. get_slopes(n) for n not a power of two: the slopes
    of P = 2^⌊log₂ n⌋, then get_slopes(2P)[0::2][: n − P].
    """

    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**k for k in range(n)]

    if math.log2(heads).is_integer():
        return power_of_two(heads)
    closest = 2 ** math.floor(math.log2(heads))
    return power_of_two(closest) + by_hand(2 * closest)[0::2][: heads - closest]


@pytest.mark.parametrize("heads", range(1, 17))
def test_slopes_follow_the_reference_rule_for_every_head_count(heads):
    assert alibi.slopes(heads) == pytest.approx(by_hand(heads), rel=1e-12)


@pytest.mark.parametrize("heads", [1, 2, 4, 8, 16])
def test_a_power_of_two_gives_the_geometric_sequence_2_to_the_minus_8h_over_h(heads):
    expected = [2 ** (-8 * h / heads) for h in range(1, heads + 1)]
    assert alibi.slopes(heads) == pytest.approx(expected, rel=1e-12)
    ratios = [b / a for a, b in zip(expected, expected[1:], strict=False)]
    assert all(r == pytest.approx(expected[0]) for r in ratios)  # first term = ratio


def test_eight_and_sixteen_heads_are_the_papers_ladders():
    """Eight heads: 1/2, 1/4, …, 1/256; sixteen: 1/2^0.5, 1/2^1, …, 1/2^8."""
    assert alibi.slopes(8) == pytest.approx([1 / 2**k for k in range(1, 9)])
    assert alibi.slopes(16) == pytest.approx([1 / 2 ** (k / 2) for k in range(1, 17)])


def test_twelve_heads_take_eight_then_every_other_of_sixteen():
    eight = [2.0**-k for k in range(1, 9)]
    odd_of_sixteen = [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    assert alibi.slopes(12) == pytest.approx(eight + odd_of_sixteen, rel=1e-12)
    assert alibi.slope_exponents(12).tolist() == [-1, -2, -3, -4, -5, -6, -7, -8] + [
        -0.5,
        -1.5,
        -2.5,
        -3.5,
    ]


@pytest.mark.parametrize("heads,expected", [(3, [-4, -8, -2]), (6, [-2, -4, -6, -8, -1, -3])])
def test_small_counts_that_are_not_powers_of_two(heads, expected):
    assert alibi.slope_exponents(heads).tolist() == expected


@pytest.mark.parametrize("slope,query", [(0.5, 1), (0.5, 10), (2**-4, 48), (2**-8, 128)])
def test_weights_are_the_softmax_of_the_bias_alone(slope, query):
    bias = [-slope * (query - j) for j in range(1, query + 1)]
    top = max(bias)
    exps = [math.exp(b - top) for b in bias]
    expected = [e / sum(exps) for e in exps]
    assert alibi.weights(slope, query) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("slope", [2**-1, 2**-4, 2**-8])
@pytest.mark.parametrize("query,trained", [(48, 16), (10, 16), (16, 16), (17, 16), (128, 4)])
def test_share_beyond_trained_distances_in_closed_form(slope, query, trained):
    """Weights ∝ r^d at distance d = 0..i−1, r = e^(−m): the share at d ≥ T is
    (r^T − r^i)/(1 − r^i) when i > T, else 0; it rises towards r^T as i grows."""
    r = math.exp(-slope)
    expected = (r**trained - r**query) / (1 - r**query) if query > trained else 0.0
    assert alibi.share_beyond(slope, query, trained) == pytest.approx(expected, abs=1e-12)
    assert alibi.share_limit(slope, trained) == pytest.approx(r**trained)
    assert alibi.share_beyond(slope, query, trained) <= r**trained


def test_a_query_far_beyond_training_still_sees_the_same_decay():
    """Weight ratios between neighbouring keys are e^(−m) at every query: the shape only grows."""
    slope = 2**-4
    for query in (16, 48, 128):
        w = alibi.weights(slope, query)
        assert [b / a for a, b in zip(w, w[1:], strict=False)] == pytest.approx(
            [math.exp(slope)] * (query - 1)
        )


def test_the_readout_states_slope_share_and_limit():
    figure = LinearBiases(heads=8, head=4, train_length=16, length=64, query=48)
    r = math.exp(-1 / 16)
    share = (r**16 - r**48) / (1 - r**48)
    text = figure.readout()
    assert "2^−4 = **0.0625**" in text
    assert f"**{100 * share:.1f} %**" == "**33.5 %**" and "**33.5 %**" in text
    assert f"**{100 * r**16:.1f} %**" == "**36.8 %**" and "**36.8 %**" in text
    assert "farther than 15 positions" in text
    assert "beyond the training length" in text
    assert "within the training length" in LinearBiases(query=16).readout()


def test_the_table_lists_every_head():
    caption, columns, rows = LinearBiases(heads=12, head=3).table()
    assert [row[0] for row in rows] == list(range(1, 13))
    assert [row[1] for row in rows][-4:] == ["2^−0.5", "2^−1.5", "2^−2.5", "2^−3.5"]
    assert "12 heads" in caption and len(columns) == 5


def test_fewer_heads_pull_the_head_inside_and_narrow_its_bounds():
    figure = LinearBiases(heads=16, head=14)
    assert figure.head == 14 and figure.param.head.bounds == (1, 16)
    figure.heads = 6
    assert figure.head == 6 and figure.param.head.bounds == (1, 6)
    with pytest.raises(ValueError, match="bounds are 1 to 6"):
        figure.head = 7
    figure.heads = 12
    assert figure.param.head.bounds == (1, 12) and figure.head == 6


def test_a_shorter_test_sequence_pulls_the_query_inside():
    figure = LinearBiases(length=128, query=120)
    assert figure.query == 120 and figure.param.query.bounds == (1, 128)
    figure.length = 48
    assert figure.query == 48 and figure.param.query.bounds == (1, 48)
    with pytest.raises(ValueError, match="bounds are 1 to 48"):
        figure.query = 49


@pytest.mark.parametrize(
    "asked,message",
    [
        ({"heads": 4, "head": 5}, "head 5 is outside 4 heads; its bounds are 1 to 4."),
        ({"head": 9}, "head 9 is outside 8 heads"),
        ({"length": 48, "query": 60}, "query 60 is outside 48 positions; its bounds are 1 to 48."),
        ({"query": 65}, "query 65 is outside 64 positions"),
    ],
)
def test_a_head_or_query_asked_for_outside_its_range_is_refused(asked, message):
    with pytest.raises(ValueError, match=message):
        LinearBiases(**asked)


def test_the_lines_mark_the_training_length_and_the_farthest_trained_distance():
    frame = LinearBiases(train_length=16, query=48).frame()
    assert frame["trained"]["location"] == 16.5  # positions 1..16 were trained
    assert frame["reach"]["location"] == 32.5  # keys 1..32 are ≥ 16 away from query 48
