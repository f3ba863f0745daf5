"""``./dev test --figure ID`` keeps the same tests in every process.

pytest-xdist's workers each collect the suite and must agree on what they run. The
selection reads each test's parameters as text; text that differs between processes (a
function's address) made one worker keep a test the other dropped, and the run failed
("Different tests were collected between gw0 and gw1").
"""

import pytest

from tests.support.selection import figure_words, stable_text


class AtAnAddress:
    """A parameter whose repr holds an address with "96" in it, as a lambda's can."""

    __qualname__ = "<lambda>"

    def __repr__(self):
        return "<function <lambda> at 0x7fa96b2c04a0>"


def named(ids, value) -> bool:
    return any(word.search(stable_text(value)) for word in figure_words(ids))


def test_a_parameter_named_by_its_address_names_no_figure():
    lam = AtAnAddress()
    assert named(["96"], repr(lam))  # read as repr, the address named figure 96
    assert not named(["96"], lam)
    assert "0x" not in stable_text(lambda p: p) and "0x" not in stable_text(object())


@pytest.mark.parametrize(
    "value,figure",
    [
        (96, "96"),
        ("figure-710", "710"),
        (("x", [7256]), "7256"),
        ({"scheme": "axial", "id": 4121}, "4121"),
    ],
)
def test_plain_values_and_their_containers_still_name_their_figure(value, figure):
    assert named([figure], value)
    assert not named(["2104"], value)


def test_a_figure_class_or_instance_names_its_figure():
    from posviz.figures import ClockHands, ParameterBudget

    assert named(["96"], ParameterBudget) and named(["710"], ClockHands())
    assert not named(["710"], ParameterBudget)


def test_text_is_the_same_for_equal_parameters_made_twice():
    assert stable_text(lambda: 1) == stable_text(lambda: 2)
    assert stable_text(object()) == stable_text(object())
