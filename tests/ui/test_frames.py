"""Tier 1 of the export: sliders answer from precomputed frames before Python is up.

The test server holds back the Pyodide runtime, so the page stays a preview
for as long as a test wants; then it lets go and the page goes live.
"""

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from posviz.drawing import model_name
from tests.support.browser import Held
from tests.support.pages import (
    figure_card,
    fingerprint,
    press_on_slider,
    slider_title,
    wait_for_plot,
    wait_for_url_with,
)

pytestmark = pytest.mark.browser
LIVE = 120_000
READY = (
    "() => document.body.dataset.posvizFrames && document.body.dataset.posvizFrames !== 'loading'"
)
PROBE = (Path(__file__).parent / "frames_probe.js").read_text("utf-8")
TOPIC = "topic-positional-encoding.html"
# Set one widget of a figure, as the reader would: the page's step runs on its change.
SET_WIDGET_JS = (Path(__file__).parent / "set_widget.js").read_text("utf-8")
PYODIDE = "pyodide/*"  # held back: the page shows its frames before Python is up


def open_preview(page, url):
    page.goto(url)
    page.wait_for_function(READY, timeout=60_000)
    assert page.evaluate("document.body.dataset.posviz") == "loading"  # Python is held back


def readout(page, index):
    """What the figure's readout shows (its paragraphs, inside Bokeh's shadow root)."""
    found = figure_card(page, index).locator(".posviz-readout p")
    return " ".join(found.all_inner_texts())


def wait_for_readout(page, index, text, timeout=LIVE):
    found = figure_card(page, index).locator(".posviz-readout p", has_text=text)
    found.first.wait_for(timeout=timeout)


def alternative(page, index):
    found = figure_card(page, index).locator(".posviz-alt p")
    return " ".join(found.all_inner_texts())


def test_a_slider_moved_on_the_preview_answers_by_keyboard_and_pointer(built_site, page, blocked):
    with Held(built_site, PYODIDE) as url:
        open_preview(page, f"{url}/{TOPIC}")
        assert page.evaluate("document.body.dataset.posvizFrames") == "ready"
        # Keyboard: figure 710's pos, one step right.
        before, said = fingerprint(page, "posviz-710-hands"), alternative(page, 1)
        press_on_slider(page, 1, 0)
        page.wait_for_function("() => location.search.includes('710.pos=13')")
        assert fingerprint(page, "posviz-710-hands") != before
        assert "pos = 13" in readout(page, 1)
        assert "at pos 13 the hands read" in alternative(page, 1) and alternative(page, 1) != said
        assert figure_card(page, 1).locator(".posviz-readout[aria-live=polite]").count() == 1
        # Pointer: figure 7256's k handle dragged far along its track.
        before = fingerprint(page, "posviz-7256-cost")
        slider = figure_card(page, 2)
        slider.locator(".noUi-handle").first.scroll_into_view_if_needed()
        handle = slider.locator(".noUi-handle").first.bounding_box()
        track = slider.locator(".noUi-target").first.bounding_box()
        page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
        page.mouse.down()
        page.mouse.move(
            track["x"] + track["width"] * 0.9, handle["y"] + handle["height"] / 2, steps=8
        )
        page.mouse.up()
        page.wait_for_function("() => /7256\\.k=\\d+/.test(location.search)")
        k = int(slider_title(page, 2, 0).split(":")[1])
        assert k > 20
        assert fingerprint(page, "posviz-7256-cost") != before
        assert f"k = {k}, m = 32" in readout(page, 2)
        assert page.evaluate("document.body.dataset.posviz") == "loading"
        assert blocked == [] and page.errors == []


def test_a_value_set_on_the_preview_and_the_focus_are_kept_when_python_takes_over(
    built_site, page, blocked
):
    held = Held(built_site, PYODIDE)
    with held as url:
        open_preview(page, f"{url}/figure-710.html")
        for _ in range(25):
            press_on_slider(page, 0, 0)
        page.wait_for_function("() => location.search === '?pos=37'")
        assert slider_title(page, 0, 0) == "pos: 37"
        preview = fingerprint(page, "posviz-710-hands")
        held.release()
        page.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=LIVE)
        assert page.evaluate("document.body.dataset.posviz") == "live"
        assert page.evaluate("Bokeh.documents.length") >= 1
        wait_for_plot(page, "posviz-710-hands")
        wait_for_readout(page, 0, "pos = 37")
        assert slider_title(page, 0, 0) == "pos: 37"
        assert fingerprint(page, "posviz-710-hands") == preview  # no jump back
        wait_for_url_with(page, "pos=37")
        # Live now: the focus went live with the slider the keys moved (export/lazy.js),
        # so the reader's next key moves it, not the page, and Python answers it.
        assert page.evaluate("posvizLazy.carried") == [710]
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => location.search === '?pos=38'", timeout=30_000)
        assert blocked == [] and page.errors == []


def test_a_deep_link_with_a_frame_is_shown_at_paint(built_site, page):
    with Held(built_site, PYODIDE) as url:
        open_preview(page, f"{url}/figure-710.html?pos=30")
        assert page.evaluate("posvizFrames.state[710]") == "frame"
        assert slider_title(page, 0, 0) == "pos: 30"
        assert "pos = 30" in readout(page, 0)


def test_two_sliders_moved_wait_for_python_with_a_visible_computing_state(built_site, page):
    held = Held(built_site, PYODIDE)
    with held as url:
        open_preview(page, f"{url}/figure-7256.html")
        press_on_slider(page, 0, 0)
        press_on_slider(page, 0, 1)  # k and m both moved: no frame holds it
        page.wait_for_function("() => posvizFrames.state[7256] === 'computing'")
        expect(page.get_by_text("Computing…").first).to_be_visible()
        hidden = page.evaluate(
            "() => Bokeh.documents[0].get_model_by_name('posviz-7256-cost').renderers"
            ".every(r => !r.visible)"
        )
        assert hidden  # no curve is drawn that does not match the sliders
        held.release()
        page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
        wait_for_readout(page, 0, "k = 8, m = 33")


@pytest.mark.parametrize(
    "damage",
    [
        {"frames/710.json.gz": lambda _: None},  # missing
        {"frames/710.bin.gz": lambda data: data[:-5] + b"xxxxx"},  # corrupt
    ],
    ids=["missing", "corrupt"],
)
def test_missing_or_corrupt_frames_say_computing_never_a_wrong_plot(built_site, page, damage):
    held = Held(built_site, PYODIDE, damage)
    with held as url:
        page.goto(f"{url}/figure-710.html")
        page.wait_for_function(READY, timeout=60_000)
        assert page.evaluate("document.body.dataset.posvizFrames") == "failed"
        press_on_slider(page, 0, 0)
        page.wait_for_function("() => posvizFrames.state[710] === 'computing'")
        expect(page.get_by_text("Computing…").first).to_be_visible()
        assert page.evaluate(
            "() => Bokeh.documents[0].get_model_by_name('posviz-710-dot').renderers"
            ".every(r => !r.visible)"
        )
        held.release()
        page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
        wait_for_readout(page, 0, "pos = 13")
        wait_for_url_with(page, "pos=13")


# --- the page's frames give the models the Python step gives ----------------------

MOVES = {
    96: [("d_model", 1024), ("preset", "big"), ("vocab_size", 5000)],
    710: [("pos", 77), ("d_model", 64)],
    7256: [("k", 8), ("m", 100)],
    4121: [("side", 10), ("scheme", "axial"), ("memory_side", 0)],
}


def python_state(figure, doc) -> dict:
    """The probe's view of a Python document: named models and text panes."""
    from bokeh.models import ColumnDataSource, LegendItem, Plot, Range1d, Span

    prefix = model_name(figure, "")
    state = {}
    for model in doc.models:
        name = model.name or ""
        if not name.startswith(prefix):
            continue
        if isinstance(model, ColumnDataSource):
            for key, value in model.data.items():
                state[f"{name} data.{key}"] = value
        elif isinstance(model, Span):
            state[f"{name} location"] = model.location
        elif isinstance(model, LegendItem):
            state[f"{name} label"] = model.label.value
        elif isinstance(model, Plot):
            state[f"{name} title.text"] = model.title.text
            for axis in ("x_range", "y_range"):
                rng = getattr(model, axis)
                if isinstance(rng, Range1d):
                    state[f"{name} {axis}.start"] = rng.start
                    state[f"{name} {axis}.end"] = rng.end
                else:
                    state[f"{name} {axis}.factors"] = list(rng.factors)
    for model in doc.models:
        properties = model.properties()
        if "css_classes" in properties:
            for role in ("readout", "alt"):
                if f"posviz-{role}" in model.css_classes:
                    state[f"text {role}"] = model.text
        if "text" in properties and "posviz-deeplink" in str(model.text):
            state["text link"] = model.text
    return state


def same(js, py, where):
    if isinstance(py, list) and py and isinstance(py[0], np.ndarray):  # an image column
        assert len(js) == len(py), where
        for got, want in zip(js, py, strict=True):
            assert list(got["shape"]) == list(want.shape), where
            np.testing.assert_allclose(got["flat"], want.ravel(), rtol=1e-12, atol=1e-12)
        return
    if isinstance(py, np.ndarray):
        got = js["flat"] if isinstance(js, dict) else js
        np.testing.assert_allclose(got, py.astype(float), rtol=1e-12, atol=1e-12, err_msg=where)
        return
    if isinstance(py, list) and py and isinstance(py[0], str) or isinstance(py, str):
        assert js == py, where
        return
    if isinstance(py, list):
        got = js["flat"] if isinstance(js, dict) else js
        np.testing.assert_allclose(got, py, rtol=1e-12, atol=1e-12, err_msg=where)
        return
    assert js == pytest.approx(py, rel=1e-12, abs=1e-12), where


@pytest.mark.parametrize("figure_id", sorted(MOVES))
def test_frames_applied_in_the_page_give_the_models_the_python_step_gives(
    built_site, page, figure_id
):
    import panel as pn
    from bokeh.document import Document

    from posviz.figures import FIGURES

    figure = FIGURES[figure_id]()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))
    defaults = figure.values()
    with Held(built_site, PYODIDE) as url:
        open_preview(page, f"{url}/figure-{figure_id}.html")
        assert page.evaluate(f"posvizFrames.loaded[{figure_id}]") == "ready"
        for name, value in [*MOVES[figure_id], (None, None)]:
            if name is not None:
                # As the widget would: the page's step runs on the widget's change.
                page.evaluate(
                    SET_WIDGET_JS,
                    [figure_id, name, value],
                )
                setattr(figure, name, value)
            assert page.evaluate(f"posvizFrames.state[{figure_id}]") == "frame", (name, value)
            js = page.evaluate(PROBE, [figure_id, model_name(figure, "")])
            py = python_state(figure, doc)
            assert js.keys() == py.keys(), (name, value, set(js) ^ set(py))
            for key in py:
                same(js[key], py[key], f"{name}={value} {key}")
            if name is not None:  # back to the opening state: each move is one slider's
                page.evaluate(
                    SET_WIDGET_JS,
                    [figure_id, name, defaults[name]],
                )
                for other in figure.sliders():
                    if other not in figure.implied:
                        setattr(figure, other, defaults[other])
                if "preset" in defaults:
                    figure.preset = defaults["preset"]


def serious_axe(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def test_the_preview_tier_has_no_serious_axe_violations_with_a_frame_or_computing(
    built_site, page, blocked
):
    with Held(built_site, PYODIDE) as url:
        open_preview(page, f"{url}/figure-7256.html")
        page.locator(".noUi-handle[aria-label]").first.wait_for(state="attached")
        press_on_slider(page, 0, 0)
        page.wait_for_function("() => posvizFrames.state[7256] === 'frame' && location.search")
        assert serious_axe(page) == []
        press_on_slider(page, 0, 1)
        page.wait_for_function("() => posvizFrames.state[7256] === 'computing'")
        assert serious_axe(page) == []
        assert blocked == []


def test_on_a_phone_a_tap_on_the_status_pill_reaches_the_slider_under_it(built_site, page):
    """While Python starts, the status pill sits over the page's bottom right corner.
    At 390 px, with the page's first slider brought under it, a tap on the pill moves
    that slider (the frames answer it), as if the pill were not there."""
    with Held(built_site, PYODIDE) as url:
        page.set_viewport_size({"width": 390, "height": 800})
        open_preview(page, f"{url}/figure-710.html")
        pill = page.locator(".posviz-status")
        expect(pill).to_contain_text("starting Python")
        track = figure_card(page, 0).locator(".noUi-target").first
        box = track.bounding_box()
        # A viewport that ends just below the track puts the track under the pill.
        bottom = page.evaluate("innerHeight") - pill.bounding_box()["y"]
        height = round(box["y"] + box["height"] / 2 + bottom - 4)
        page.set_viewport_size({"width": 390, "height": height})
        page.wait_for_function(  # the pill has moved up with the viewport's bottom
            "(y) => { const r = document.querySelector('.posviz-status').getBoundingClientRect();"
            " return r.top < y && r.bottom > y; }",
            arg=box["y"] + box["height"] / 2,
        )
        pill_box, box = pill.bounding_box(), track.bounding_box()
        left = max(pill_box["x"], box["x"])  # where the pill lies over the track
        right = min(pill_box["x"] + pill_box["width"], box["x"] + box["width"])
        assert left + 4 < right, (pill_box, box)
        x, y = (left + right) / 2, box["y"] + box["height"] / 2
        assert pill_box["y"] < y < pill_box["y"] + pill_box["height"], (pill_box, box)
        hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).className", [x, y])
        assert "posviz-status" not in hit, f"the status pill takes a tap at ({x:.0f}, {y:.0f})"
        before = slider_title(page, 0, 0)
        page.mouse.click(x, y)
        page.wait_for_function("() => /[?&]pos=\\d+/.test(location.search)")
        assert slider_title(page, 0, 0) != before
        assert page.evaluate("document.body.dataset.posviz") == "loading"  # still the preview
