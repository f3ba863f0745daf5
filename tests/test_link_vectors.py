"""The deep-link grammar against the vectors the browser's copy passes too.

``tests/data/link_vectors.json`` is read here with ``posviz/deeplinks.py`` and
by ``tests/js/links.test.mjs`` with ``export/links.js`` (run below through
Node's own test runner), so the preview and Python cannot read one link two
ways. The last tests tie the grammar to the shipped figures: the page
description the site ships is the figures', and a slider the grammar leaves
to its figure is one whose bounds really move.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from posviz import deeplinks
from posviz.figures import FIGURES

ROOT = Path(__file__).resolve().parents[1]
VECTORS = json.loads((ROOT / "tests" / "data" / "link_vectors.json").read_text("utf-8"))


def as_json(values: dict) -> dict:
    """Figure ids as the JSON file writes them."""
    return {str(figure_id): found for figure_id, found in values.items()}


@pytest.mark.parametrize("case", VECTORS["read"], ids=[c["why"] for c in VECTORS["read"]])
def test_python_reads_each_link_as_the_vectors_say(case):
    found = deeplinks.read(case["search"], VECTORS["pages"][case["page"]])
    assert as_json(found["values"]) == case["values"]
    if "problems" in case:
        assert found["problems"] == case["problems"]
    else:
        assert found["problems"][: len(case["problems_start"])] == case["problems_start"]
        assert len(found["problems"]) == case["problems_count"]


@pytest.mark.parametrize("case", VECTORS["write"], ids=[c["why"] for c in VECTORS["write"]])
def test_python_writes_each_change_as_the_vectors_say(case):
    page = VECTORS["pages"][case["page"]]
    changes = {int(figure_id): values for figure_id, values in case["changes"].items()}
    after = deeplinks.write(case["search"], page, changes)
    if "after" in case:
        assert after == case["after"]
    else:
        assert after.startswith(case["after_starts"])
        assert as_json(deeplinks.read(after, page)["values"]) == case["then_reads"]


def test_a_written_link_reads_back_as_the_values_written():
    page = VECTORS["pages"]["kinds"]
    values = {"base": 0.5, "scheme": "block-1d", "rate": 0.75, "causal": False, "label": "a&b"}
    after = deeplinks.write("?rate=0.1&junk=1", page, {9001: values})
    assert deeplinks.read(after, page)["values"] == {9001: values}


@pytest.mark.parametrize(
    "case", VECTORS["moved"]["cases"], ids=[c["why"] for c in VECTORS["moved"]["cases"]]
)
def test_python_checks_a_moved_slider_as_the_vectors_say(case):
    moves = VECTORS["moved"]["moves"]
    if case["error"] is None:
        deeplinks.check_moved(case["value"], moves, case["values"])
    else:
        with pytest.raises(ValueError) as refused:
            deeplinks.check_moved(case["value"], moves, case["values"])
        assert str(refused.value) == case["error"]


def test_the_notice_escapes_and_stops_at_max_shown():
    problems = [f"<b>{n}</b>" for n in range(deeplinks.MAX_SHOWN + 3)]
    notice = deeplinks.notice_html(problems)
    assert "<b>" not in notice.split("</strong>", 1)[1]
    assert notice.count("<li>") == deeplinks.MAX_SHOWN + 1
    assert notice.endswith("<li>and 3 more</li></ul>")
    assert deeplinks.notice_html([]) == ""


def test_the_browser_grammar_passes_the_same_vectors_in_node():
    """Every Node unit test of the browser code (tests/js), the shared vectors' among them."""
    assert shutil.which("node"), "Node is missing: ./dev test installs it (apt-get nodejs)"
    done = subprocess.run(
        ["node", "--test", str(ROOT / "tests" / "js")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        # The scripts are bundled by this Python (tests/js/bundled.mjs).
        env={**os.environ, "POSVIZ_PYTHON": sys.executable},
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


# --- the grammar and the shipped figures ----------------------------------------------


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_every_shipped_slider_is_read_by_its_type(figure_id):
    figure = FIGURES[figure_id]()
    spec = deeplinks.figure_spec(figure)
    assert [s["name"] for s in spec["sliders"]] == figure.sliders()
    for slider in spec["sliders"]:
        assert slider["type"] in ("integer", "choice"), slider
        value = getattr(figure, slider["name"])
        # The opening value, written and read back, is the opening value.
        text = deeplinks.value_text(value, slider)
        assert deeplinks.parse(text, slider) == value


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_slider_left_to_its_figure_is_one_whose_bounds_move(figure_id):
    """Over every state the build reaches, the sliders whose bounds moved are those declared."""
    from posviz.export.frames import reachable

    cls = FIGURES[figure_id]
    moved = set()
    for values in reachable(cls)[0].values():
        figure = cls(**{k: v for k, v in values.items() if k not in cls.implied})
        moved |= set(figure.moved_bounds())
    assert moved == set(cls.moving_sliders())
    for slider in deeplinks.figure_spec(cls())["sliders"]:
        if slider["type"] == "integer":
            assert (slider["bounds"] is None) == (slider["name"] in moved)


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_each_value_a_widget_reaches_passes_the_grammar(figure_id):
    """Step and parity refuse only what no widget can reach: every slider value the build
    steps through (bounds, step) reads back, and one off the step, where there is a step, does not.
    """
    from posviz.export.frames import slider_values

    figure = FIGURES[figure_id]()
    for slider in deeplinks.figure_spec(figure)["sliders"]:
        for value in slider_values(figure, slider["name"]):
            deeplinks.check(value, slider)
        if slider.get("step") and slider.get("bounds"):
            with pytest.raises(ValueError, match="in steps of|even"):
                deeplinks.check(slider["bounds"][0] + 1, slider)


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_a_moving_sliders_table_gives_the_bounds_the_figure_has_in_every_state(figure_id):
    """Every state the build reaches, checked against the table a checker without Python reads:
    the table names the movers, and its bounds are the figure's own."""
    from posviz.export.frames import reachable

    cls = FIGURES[figure_id]
    tables = cls.moving_bounds()
    assert set(tables) == set(cls.moving_sliders())  # every moving slider can be checked
    for values in reachable(cls)[0].values():
        figure = cls(**{k: v for k, v in values.items() if k not in cls.implied})
        for name, moves in tables.items():
            state = [getattr(figure, mover) for mover in moves["by"]]
            assert moves["bounds"][deeplinks.state_key(state)] == list(figure.param[name].bounds)
