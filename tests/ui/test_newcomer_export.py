"""CONTRIBUTING's figure, added in a copy of the repository, works in the static site
as the shipped four do: from its frames with no Python, then from the numpy tier.

The figure and its test are taken from CONTRIBUTING.md itself, so the page a
newcomer reads and what the site does cannot drift apart.
"""

import os
import shutil
import subprocess
import sys
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.support.browser import Held, sealed_context
from tests.support.newcomer import ROOT, contributing_examples, left_out
from tests.support.pages import figure_card, new_page, press_on_slider, wait_for_url_with

pytestmark = pytest.mark.browser
LIVE = 120_000
READY = "() => document.body.dataset.posvizFrames === 'ready'"
DRAWN = "() => Bokeh.index.roots.length && Bokeh.index.roots.every((v) => v.has_finished())"


@pytest.fixture(scope="module")
def newcomer_site(tmp_path_factory):
    """A copy of the repository with CONTRIBUTING's figure and test added, and its export."""
    copy = tmp_path_factory.mktemp("newcomer") / "posviz"
    shutil.copytree(ROOT, copy, ignore=left_out(), symlinks=True)
    for path, code in contributing_examples().items():
        (copy / path).write_text(code, "utf-8")
    out = copy.parent / "site"
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("POSVIZ_CONTENT", None)
    done = subprocess.run(
        [sys.executable, "-m", "posviz.cli", "build", "--out", str(out)],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def readout(page) -> str:
    return " ".join(figure_card(page, 0).locator(".posviz-readout p").all_inner_texts())


def title(page) -> str:
    return page.evaluate("Bokeh.documents[0].get_model_by_name('posviz-5-plot').title.text")


def line(page) -> list:
    return page.evaluate(
        "Array.from(Bokeh.documents[0].get_model_by_name('posviz-5-line').data.height)"
    )


def test_contributings_figure_answers_from_its_frames_with_python_held_back(newcomer_site, browser):
    blocked = []
    context = sealed_context(browser, blocked)
    page = new_page(context)
    try:
        with Held(newcomer_site, "pyodide/*") as url:  # no Python at all
            page.goto(f"{url}/figure-5.html")
            page.wait_for_function(READY, timeout=60_000)
            assert title(page) == "4² = 16"
            press_on_slider(page, 0, 0)  # n: 4 → 5
            page.wait_for_function("() => location.search === '?n=5'")  # slope at its default
            assert title(page) == "5² = 25"
            assert line(page) == [10, 20, 30, 40, 50]
            assert "n = 5 · n² = 25 · the line at n: 50" in readout(page)
            assert page.evaluate("document.body.dataset.posviz") == "loading"
        assert blocked == [] and page.errors == []
    finally:
        context.close()


def test_contributings_figure_answers_a_two_slider_state_from_the_numpy_tier(
    newcomer_site, browser
):
    blocked = []
    context = sealed_context(browser, blocked)
    page = new_page(context)
    try:
        with Held(newcomer_site, "wheels/panel-*") as url:  # Python up to its numpy tier
            page.goto(f"{url}/figure-5.html")
            page.wait_for_function(READY, timeout=60_000)
            press_on_slider(page, 0, 0)  # n = 5
            press_on_slider(page, 0, 1)  # slope = 11: no precomputed frame holds both
            page.wait_for_function("() => posvizFrames.state[5] === 'python'", timeout=LIVE)
            assert page.evaluate("document.body.dataset.posviz") == "loading"  # no Panel
            assert line(page) == [11, 22, 33, 44, 55]
            assert "the line at n: 55" in readout(page)
            written = wait_for_url_with(page, "n=5", "slope=11")
            assert dict(parse_qsl(urlsplit(written).query)) == {"n": "5", "slope": "11"}
        assert blocked == [] and page.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_contributings_figure_keeps_the_room_its_drawing_takes(newcomer_site, browser, width):
    """The room derived from what a figure draws fits a figure it was not tuned on."""
    blocked = []
    context = sealed_context(browser, blocked, viewport={"width": width, "height": 900})
    page = new_page(context)
    try:
        with Held(newcomer_site, "pyodide/*") as url:
            page.goto(f"{url}/gallery.html")
            page.wait_for_function(READY, timeout=60_000)
            island = '.posviz-island[data-figure="5"]'
            # Not joined yet (below the fold, or held back): the island holds its room.
            assert page.locator(f"{island} > .posviz-room").count() == 1
            room = page.evaluate(
                f"document.querySelector('{island}').getBoundingClientRect().height"
            )
            page.evaluate("posvizLazy.joinAll()")
            page.wait_for_function("() => posvizLazy.waiting().length === 0")
            page.wait_for_function(DRAWN)
            drawn = page.evaluate(
                f"document.querySelector('{island}').getBoundingClientRect().height"
            )
            assert abs(room - drawn) <= 8, (room, drawn)  # the room is what the figure draws
        assert blocked == [] and page.errors == []
    finally:
        context.close()
