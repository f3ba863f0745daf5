"""Deep links parse every parameter type by its type, on a figure declared here.

The four shipped figures have only whole numbers and Selectors of strings; a
Selector of numbers once crashed a served page (``'Selector' object has no
attribute 'bounds'``). Each type gets good values, bad values, and values that
param itself refuses, and every bad one ends as a notice naming key and reason.
"""

import html

import panel as pn
import param
import pytest

from posviz.compose.links import DeepLinks
from tests.support.compose import FakeLocation


class Even(param.Integer):
    """A whole number that param itself refuses when odd, inside its bounds."""

    def _validate(self, val):
        super()._validate(val)
        if val is not None and val % 2:
            raise ValueError(f"Parameter '{self.name}' must be even, not {val}.")


class EveryKind(param.Parameterized):
    """A figure-shaped object: what DeepLinks reads of a figure is its id and sliders."""

    figure_id = 9001
    base = param.Selector(default=10_000, objects=[100, 1_000, 10_000, 100_000])
    scale = param.Selector(default=0.5, objects=[0.25, 0.5, 1.0])
    scheme = param.Selector(default="local", objects=["global", "local"])
    n = param.Integer(default=8, bounds=(1, 64))
    even = Even(default=8, bounds=(2, 64))
    rate = param.Number(default=0.5, bounds=(0.0, 1.0))
    causal = param.Boolean(default=False)
    label = param.String(default="q")

    def sliders(self) -> list[str]:
        return [name for name in self.param if name != "name"]


@pytest.fixture
def location(monkeypatch):
    fake = FakeLocation()
    monkeypatch.setattr(type(pn.state), "location", property(lambda self: fake))
    return fake


def opened(location, search: str):
    """(figure, notice items) after opening a one-figure view at ``search``."""
    location.search = search
    figure = EveryKind()
    links = DeepLinks({figure.figure_id: figure}, single=True)
    items = [html.unescape(i.split("</li>")[0]) for i in links.notice.object.split("<li>")[1:]]
    assert links.notice.visible == bool(items)
    return figure, items


@pytest.mark.parametrize(
    "search,name,value",
    [
        ("?base=1000", "base", 1_000),
        ("?base=100000", "base", 100_000),
        ("?scale=0.25", "scale", 0.25),
        ("?scheme=global", "scheme", "global"),
        ("?n=64", "n", 64),
        ("?rate=0.75", "rate", 0.75),
        ("?rate=1", "rate", 1.0),
        ("?causal=true", "causal", True),
        ("?causal=0", "causal", False),
        ("?label=k", "label", "k"),
    ],
)
def test_a_good_value_of_each_type_is_set_as_its_own_type(location, search, name, value):
    figure, items = opened(location, search)
    assert items == []
    assert getattr(figure, name) == value
    assert type(getattr(figure, name)) is type(value)


@pytest.mark.parametrize(
    "search,reason",
    [
        ("?base=999", "base=999: must be one of 100, 1000, 10000, 100000"),
        ("?base=1e3", "base=1e3: must be one of 100, 1000, 10000, 100000"),
        ("?base=", "base=: must be one of 100, 1000, 10000, 100000"),
        ("?scale=.5", "scale=.5: must be one of 0.25, 0.5, 1.0"),
        ("?scheme=Local", "scheme=Local: must be one of global, local"),
        ("?n=abc", "n=abc: must be a whole number from 1 to 64"),
        ("?n=65", "n=65: must be from 1 to 64"),
        ("?n=0000000000001", "n=0000000000001: must be a whole number from 1 to 64"),
        ("?rate=1.5", "rate=1.5: must be from 0.0 to 1.0"),
        ("?rate=nan", "rate=nan: must be a number from 0.0 to 1.0"),
        ("?rate=1e309", "rate=1e309: must be a number from 0.0 to 1.0"),
        ("?causal=yes", "causal=yes: must be true or false"),
        ("?label=" + "x" * 41, "must be at most 40 characters"),
    ],
)
def test_a_bad_value_of_each_type_is_a_notice_and_the_figure_keeps_its_value(
    location, search, reason
):
    figure, items = opened(location, search)
    assert [item for item in items if reason in item] == items and len(items) == 1
    assert {name: getattr(figure, name) for name in figure.sliders()} == {
        name: figure.param[name].default for name in figure.sliders()
    }


def test_a_value_param_refuses_inside_the_bounds_gives_params_reason(location):
    figure, items = opened(location, "?even=7&n=5")
    assert figure.n == 5
    [item] = items
    assert item.startswith("even=7:") and "even" in item.split(":", 1)[1]
    assert "from 2 to 64" not in item
