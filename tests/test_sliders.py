"""Every slider a reader sees does something; the ones that would not are hidden.

A figure names, in ``used_when``, the sliders that only some of its choices
use (4121's block sizes). ``posviz.drawing.controls.idle`` says which are idle
at the current values; the layout hides exactly those, keeps the others in
declaration order (the Tab order), and a hidden slider keeps its value and its
place in the deep link.
"""

import panel as pn
import param
import pytest

from posviz.compose import page
from posviz.drawing.controls import idle
from posviz.export.frames import slider_values
from posviz.figures import FIGURES, QueryReach
from posviz.figures import query_reach as reach
from posviz.figures.model import EvenSlider
from tests.support.compose import FakeLocation, live_figures, view


def tried_values(figure, name) -> list:
    """Values to move a slider to: every choice, or its ends, middle and neighbours."""
    parameter = figure.param[name]
    if isinstance(parameter, param.Selector):
        return list(parameter.objects)
    low, high = parameter.bounds
    step = getattr(parameter, "step", None) or 1
    value = getattr(figure, name)
    candidates = {low, high, (low + high) // 2, value - step, value + step}
    valid = []
    for candidate in sorted(candidates):
        try:
            parameter._validate(candidate)
        except ValueError:
            continue
        valid.append(candidate)
    return valid


def seen(figure) -> tuple:
    """What a reader sees of the figure, apart from the slider values themselves."""
    found = (figure.describe(), figure.table())
    if isinstance(figure, QueryReach):
        found += tuple(figure.frame()[f"cells{n}"]["data"]["image"][0].tobytes() for n in (1, 2))
    return found


def moved(cls, start: dict, name: str, value) -> tuple:
    figure = cls(**start)
    setattr(figure, name, value)
    return seen(figure)


def states():
    """(figure class, starting values): every figure at its defaults, 4121 at every scheme."""
    for figure_id, cls in sorted(FIGURES.items()):
        yield pytest.param(cls, {}, id=str(figure_id))
    for name in reach.SCHEMES:
        yield pytest.param(QueryReach, {"scheme": name}, id=f"4121-{name}")


@pytest.mark.parametrize("cls,start", list(states()))
def test_every_shown_slider_changes_what_the_reader_sees(cls, start):
    figure = cls(**start)
    before = seen(figure)
    quiet = idle(figure)
    silent = [
        name
        for name in figure.sliders()
        if name not in quiet
        and all(moved(cls, start, name, value) == before for value in tried_values(figure, name))
    ]
    assert silent == [], f"{cls.__name__} at {start or 'its defaults'}: shown but do nothing"


@pytest.mark.parametrize("cls,start", list(states()))
def test_every_hidden_slider_changes_nothing(cls, start):
    figure = cls(**start)
    before = seen(figure)
    for name in idle(figure):
        for value in tried_values(figure, name):
            assert moved(cls, start, name, value) == before, (name, value)


def silent_sliders(figure) -> set[str]:
    """The sliders that change nothing a reader sees at ``figure``'s values, found by moving
    each of them (hidden or not) to every value ``tried_values`` gives."""
    cls, start, before = type(figure), figure.values(), seen(figure)
    return {
        name
        for name in figure.sliders()
        if all(moved(cls, start, name, value) == before for value in tried_values(figure, name))
    }


@pytest.mark.parametrize("cls,start", list(states()))
def test_the_hidden_sliders_are_exactly_the_ones_that_do_nothing(cls, start):
    """Derived, not listed: at each state the layout hides just the sliders that move nothing
    (the issue's count was 6 of the topic's 17 at 4121's default scheme)."""
    figure = cls(**start)
    assert set(idle(figure)) == silent_sliders(figure)


def test_a_hidden_slider_names_the_choices_that_use_it():
    """The word beside a hidden slider is the label of the choice that uses it."""
    figure = QueryReach(scheme="block-1d")
    labels = {value: word for word, value in figure.param.scheme.names.items()}
    expected = {
        name: labels[users[0]]
        for name, (_, users) in QueryReach.used_when.items()
        if figure.scheme not in users
    }
    assert idle(figure) == expected and expected  # at least one is hidden there


def control_names(layout, figure) -> list[str]:
    """The names of the figure's visible slider widgets, in layout (and Tab) order."""
    by_label = {figure.param[name].label: name for name in figure.sliders()}
    by_label["Scheme"] = "scheme"  # pn.Param titles a label-less Selector by its name
    return [
        by_label[widget.name]
        for widget in layout.select(pn.widgets.Widget)
        if widget.name in by_label and widget.visible
    ]


def test_the_layout_shows_the_used_sliders_in_declaration_order():
    figure = QueryReach()
    layout = figure.__panel__()
    for name in [*reach.SCHEMES, "local"]:
        figure.scheme = name
        expected = [n for n in figure.sliders() if n not in idle(figure)]
        assert control_names(layout, figure) == expected, name
    figure.scheme = "block-2d"
    assert control_names(layout, figure)[-4:] == [
        "block_height",
        "block_width",
        "memory_above",
        "memory_side",
    ]


@pytest.fixture
def location(monkeypatch):
    fake = FakeLocation()
    monkeypatch.setattr(type(pn.state), "location", property(lambda self: fake))
    return fake


def test_a_hidden_slider_keeps_its_value_and_its_deep_link(location):
    location.search = "?scheme=block-1d&query_length=4"
    [figure] = live_figures(view("figure-4121"))
    layout = page.island(figure)  # its root on the page
    assert figure.query_length == 4 and "query_length" in control_names(layout, figure)
    one_d = figure.reached(1).copy()
    figure.scheme = "local"
    assert "query_length" not in control_names(layout, figure)
    assert figure.query_length == 4 and "query_length=4" in location.search
    figure.scheme = "block-1d"
    assert "query_length" in control_names(layout, figure)
    assert (figure.reached(1) == one_d).all()


def test_a_link_may_set_a_hidden_slider(location):
    """Applied without a notice: it takes effect when its scheme is picked."""
    location.search = "?memory_length=0"
    shown = view("figure-4121")
    [figure] = live_figures(shown)
    layout = page.island(figure)
    assert not shown.links.notice.visible
    assert figure.scheme == "local" and figure.memory_length == 0
    assert "memory_length" not in control_names(layout, figure)
    figure.scheme = "block-1d"
    assert figure.reached(1).sum() == figure.query_length  # its block alone: no memory


class Draft(param.Parameterized):
    """A newcomer's sliders: an even one with no step, and one with an even step."""

    width = EvenSlider(default=64, bounds=(16, 512))
    wide = EvenSlider(default=64, bounds=(16, 512), step=16)


@pytest.mark.parametrize("name,step", [("width", 2), ("wide", 16)])
def test_an_even_slider_steps_by_two_unless_told_so_the_build_walks_even_values(name, step):
    """A newcomer's d_model with no step walked 16, 17, 18, ... and the build failed on
    17 (``must be even``): the values the build walks are even, every one."""
    draft = Draft()
    assert Draft.param[name].step == step
    walked = slider_values(draft, name)
    assert walked[:2] == [16, 16 + step] and walked[-1] <= 512
    assert [value for value in walked if value % 2] == []


@pytest.mark.parametrize("odd", [{"step": 1}, {"step": 3}, {"bounds": (15, 512)}])
def test_an_even_slider_that_would_walk_odd_values_fails_where_it_is_defined(odd):
    asked = {"bounds": (16, 512), **odd}
    with pytest.raises(ValueError) as failed:
        EvenSlider(default=64, **asked)
    said = str(failed.value)
    assert f"bounds={asked['bounds']}" in said
    assert "an even lower bound and an even step (2 if not given)" in said
