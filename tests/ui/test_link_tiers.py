"""What a reader sets is never contradicted: the preview and Python read one link alike,
and every figure listens from its first paint, whatever another figure's files do.

Each case opens a link on the preview (Python held back), records what the
preview shows, lets Python go, and checks that the live page shows the same
state, or that the reader was told why not, in both tiers' words.
"""

import contextlib
import html
import re

import pytest

from tests.support.browser import Held, sealed_context
from tests.support.pages import Blocked, figure_card, new_page, press_on_slider, slider_title

pytestmark = pytest.mark.browser
LIVE = 180_000
PYODIDE = "pyodide/*"
TOPIC = "topic-positional-encoding.html"
READY = "() => document.body.dataset.posvizFrames === 'ready'"
NOTICE = ".posviz-notice li"


def notice(page) -> list[str]:
    return page.locator(NOTICE).all_inner_texts()


def wait_notice(page, text: str, timeout=30_000):
    page.locator(NOTICE, has_text=text).first.wait_for(timeout=timeout)


@contextlib.contextmanager
def preview(built_site, page, path: str, held_files: str = PYODIDE):
    """``path`` opened on the preview, with ``held_files`` held back until ``go_live``."""
    held = Held(built_site, held_files)
    with held as url:
        page.goto(f"{url}/{path}")
        page.wait_for_function(READY, timeout=60_000)
        yield held


def go_live(held, page):
    held.release()
    page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)


def titles(page, figure_index: int, count: int) -> list[str]:
    return [slider_title(page, figure_index, n) for n in range(count)]


JUNK = "&".join(f"z{n}=1" for n in range(60))

CASES = [
    # (page, query, the figure's first slider titles on both tiers, words the notice holds)
    ("figure-710.html", "?pos=30&pos=40", ["pos: 12", "d_model: 128"], "2 times"),
    ("figure-710.html", "?pos=0000000030", ["pos: 12", "d_model: 128"], "whole number"),
    ("figure-710.html", "?pos=101", ["pos: 12", "d_model: 128"], "must be from 0 to 100"),
    ("figure-710.html", "?pos=" + "9" * 400, ["pos: 12", "d_model: 128"], "whole number"),
    ("figure-710.html", "?d_model=17", ["pos: 12", "d_model: 128"], "must be even"),
    ("figure-710.html", "?d_model=24", ["pos: 12", "d_model: 128"], "in steps of 16"),
    ("figure-710.html", "?pos=30&d_model=64", ["pos: 30", "d_model: 64"], None),
    ("figure-96.html", "?preset=big", ["d_model: 1024", "d_ff: 4096"], None),
]


@pytest.fixture(scope="module")
def linked(browser, built_site):
    """Every case's link in a tab of its own, in one reader's profile, on the preview.

    What each preview shows is recorded, then Python goes: the tabs share one
    runtime, as a reader's tabs do, so the cases pay for one cold start, not one
    each. Yields, per case's query, its tab and what its preview showed.
    """
    blocked = Blocked()
    context = sealed_context(browser, blocked)
    held = Held(built_site, PYODIDE)
    with held as url:
        tabs = {}
        for path, query, _, _ in CASES:
            tabs[query] = new_page(context)
            tabs[query].goto(f"{url}/{path}{query}")
        seen = {}
        for _, query, shown, why in CASES:
            page = tabs[query]
            page.wait_for_function(READY, timeout=60_000)
            page.wait_for_function("() => posvizFrames.state[Object.keys(posvizFrames.figures)[0]]")
            if why:
                wait_notice(page, why)
            seen[query] = (titles(page, 0, len(shown)), notice(page))
        held.release()
        yield {query: (tabs[query], seen[query]) for query in tabs}
    context.close()
    assert blocked == []


@pytest.mark.parametrize("path,query,shown,why", CASES, ids=[c[1][:40] for c in CASES])
def test_a_link_shows_one_state_on_the_preview_and_live(linked, path, query, shown, why):
    page, (preview_titles, preview_notice) = linked[query]
    assert preview_titles == shown  # the preview
    assert not why or any(why in item for item in preview_notice), preview_notice
    page.wait_for_function("() => document.body.dataset.posviz === 'live'", timeout=LIVE)
    for n, title in enumerate(shown):  # the live page, Python's widgets
        page.locator(".bk-slider-title", has_text=title).first.wait_for(timeout=LIVE)
        assert slider_title(page, 0, n) == title
    if why:
        wait_notice(page, why, timeout=LIVE)
    assert page.errors == []


def test_on_the_topic_a_bare_key_two_figures_have_sets_neither(built_site, page):
    with preview(built_site, page, f"{TOPIC}?d_model=64") as held:
        wait_notice(page, "more than one figure here has it")
        values = page.evaluate(
            "() => [posvizFrames.figures[96].values.d_model, "
            "posvizFrames.figures[710].values.d_model]"
        )
        assert values == [512, 128]
        go_live(held, page)
        wait_notice(page, "more than one figure here has it", timeout=LIVE)
        assert slider_title(page, 1, 1) == "d_model: 128"


def test_a_move_after_sixty_junk_settings_is_kept_when_python_takes_over(built_site, page):
    with preview(built_site, page, f"figure-710.html?{JUNK}&pos=30") as held:
        wait_notice(page, "the link has 61 settings; only the first 50 were read")
        assert slider_title(page, 0, 0) == "pos: 12"
        press_on_slider(page, 0, 0)
        page.wait_for_function("() => location.search.startsWith('?pos=13&z0=1')")
        assert "pos=30" not in page.evaluate("location.search")
        go_live(held, page)
        page.locator(".bk-slider-title", has_text="pos: 13").first.wait_for(timeout=LIVE)
        assert page.evaluate("location.search").startswith("?pos=13&")


def test_a_value_the_figure_refuses_is_said_by_the_numpy_tier_and_by_python(built_site, page):
    """Row 30 passes the grammar (the figure moves its bounds) but not figure 2010."""
    # Panel held back: the numpy tier answers.
    with preview(built_site, page, "figure-2010.html?row=30", "pyodide/*panel*") as held:
        page.wait_for_function("() => posvizFrames.state[2010] === 'refused'", timeout=LIVE)
        [said] = [item for item in notice(page) if item.startswith("row=30:")]
        assert "row" in said and "bounds" in said
        assert page.evaluate("posvizFrames.figures[2010].values.row") == 3  # the opening's
        assert page.get_by_text("Computing…").count() == 0
        go_live(held, page)
        wait_notice(page, "row=30:", timeout=LIVE)


def test_every_figure_listens_from_its_paint_though_its_frames_are_held(built_site, page):
    """Figure 710's frames never come; 7256's do. Each answers on its own."""
    # Held: 710's two files and Pyodide's wasm (three connections of the six a browser
    # opens to one host), so Python cannot take over before the test has looked.
    held = Held(built_site, "frames/710.*", {"pyodide/pyodide.asm.wasm": lambda _: held.event})
    with held as url:
        # Not until "load": the held file may count against it in some engines.
        page.goto(f"{url}/{TOPIC}", wait_until="domcontentloaded")
        page.wait_for_function(
            "() => posvizFrames.figures[710] && posvizFrames.figures[7256]", timeout=LIVE
        )
        press_on_slider(page, 1, 0)  # 710's pos, its frames still held
        page.wait_for_function("() => posvizFrames.state[710] === 'computing'")
        page.wait_for_function("() => location.search.includes('710.pos=13')")
        assert "Computing…" in page.evaluate("posvizFrames.figures[710].models.text.readout.text")
        page.wait_for_function("() => posvizFrames.loaded[7256] === 'ready'", timeout=LIVE)
        press_on_slider(page, 2, 0)  # 7256's k: answered by its frames at once
        page.wait_for_function("() => posvizFrames.state[7256] === 'frame'")
        k = int(re.search(r"\d+", slider_title(page, 2, 0)).group())
        said = page.evaluate("posvizFrames.figures[7256].models.text.readout.text")
        assert f"k = {k}," in re.sub("<[^>]+>", "", html.unescape(html.unescape(said)))
        assert page.evaluate("document.body.dataset.posvizFrames") == "loading"
        go_live(held, page)
        figure_card(page, 1).locator(".bk-slider-title", has_text="pos: 13").wait_for(timeout=LIVE)
