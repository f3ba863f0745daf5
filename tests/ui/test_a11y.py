"""Accessibility in the browser: axe-core, keyboard, screen-reader text, motion, print, dark.

axe-core comes from PyPI's axe-playwright-python (a test dependency; nothing of
it is shipped in the site) and is injected into each page by Playwright.
"""

import pytest
from playwright.sync_api import expect

from posviz.compose.routes import routes
from posviz.content import load
from posviz.styles import DARK
from tests.support.browser import sealed_context
from tests.support.pages import (
    CANVAS_EDGES_JS,
    axe_serious,
    deep_focus,
    fingerprint,
    new_page,
    settle,
    wait_for_change,
    wait_for_plot,
    wait_for_url_with,
)

pytestmark = pytest.mark.browser

# One route of each kind (home, topic, page, figure, tag, gallery): pages of a kind
# share their template and scripts, and the gallery holds every figure's widgets and
# plots, so under serve each kind is audited in both schemes. Every route's own text
# (headings, links, tables, captions) is audited in both schemes as the export's
# text-first page (test_text_first.py), with scripts off.
ONE_PER_KIND = list({route.kind: route.name for route in reversed(list(routes(load())))}.values())

# The first figure's current plot background, as Bokeh holds it.
BACKGROUND_JS = """(name) => {
  for (const doc of [...Bokeh.documents].reverse()) {
    const plot = doc.get_model_by_name(name);
    if (plot) return plot.background_fill_color;
  }
  return null;
}"""


def url(base: str, name: str) -> str:
    return f"{base}/" if name == "index" else f"{base}/{name}"


# The page's plots, every Bokeh document's, have the given background and there is one
# at least: the page script has themed them for the scheme now in force.
PLOTS_THEMED_JS = """(paper) => {
  const plots = [...Bokeh.documents].flatMap((doc) => [...doc.all_models])
    .filter((model) => model.type === 'Plot' || model.type === 'Figure');
  return plots.length > 0 && plots.every((plot) => plot.background_fill_color === paper);
}"""


@pytest.mark.parametrize("name", ONE_PER_KIND)
def test_no_serious_axe_violations_under_serve(served, page, blocked, name):
    """In the light scheme, then in the dark one the reader's system switches to while
    the page is open (the page script re-themes its plots): one load per kind."""
    page.emulate_media(color_scheme="light")
    page.goto(url(served, name))
    settle(page)
    assert axe_serious(page) == [], "light"
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == rgb(DARK["paper"])
    if page.locator(".posviz-figure-block").count():
        page.wait_for_function(PLOTS_THEMED_JS, arg=DARK["paper"])
    assert axe_serious(page) == [], "dark"
    assert blocked == [] and page.errors == []


def test_axe_sees_the_problem_it_should(served, page):
    """The audit can fail: an unnamed slider handle is reported as serious."""
    page.goto(url(served, "figure-710"))
    settle(page)
    page.evaluate(
        "() => { const d = document.createElement('div'); d.setAttribute('role', 'slider');"
        " d.tabIndex = 0; document.body.appendChild(d); }"
    )
    assert any(v.startswith("aria-input-field-name") for v in axe_serious(page))


def test_every_control_is_reached_by_tab_with_visible_focus(served, page):
    page.goto(url(served, "figure-96"))
    settle(page)
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focus = deep_focus(page)
        if focus is None:
            continue
        reached.append(focus["label"])
        if "noUi-handle" in focus["cls"] or "bk-btn" in focus["cls"]:
            assert focus["outline"] != "none" and focus["width"] >= 2, focus
    # Preset buttons, the four sliders by their titles, then "Show the numbers".
    for expected in [
        "base",
        "big",
        "custom",
        "d_model",
        "d_ff",
        "N (layers per stack)",
        "vocabulary",
        "Show the numbers",
    ]:
        assert expected in reached, (expected, reached)


def test_arrow_keys_move_a_slider_and_the_plot_and_its_text_follow(served, page):
    page.goto(url(served, "figure-710"))
    settle(page)
    before = wait_for_plot(page, "posviz-710-hands")
    alternative = page.locator(".posviz-alt .posviz-sr")
    expect(alternative).to_contain_text("at pos 12 the hands read")
    for _ in range(10):  # Tab to the first slider, as a keyboard reader would
        page.keyboard.press("Tab")
        if (deep_focus(page) or {}).get("label") == "pos":
            break
    assert deep_focus(page)["label"] == "pos"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for_change(page, "posviz-710-hands", before)
    page.locator(".posviz-readout", has_text="pos = 14").wait_for()
    assert page.locator(".posviz-readout").get_attribute("aria-live") == "polite"
    expect(alternative).to_contain_text("at pos 14 the hands read")
    wait_for_url_with(page, "pos=14")


def test_show_the_numbers_gives_a_table_of_the_current_data(served, page):
    page.goto(url(served, "figure-710?pos=30&d_model=64"))
    settle(page)
    assert page.locator(".posviz-numbers table").count() == 0
    page.get_by_role("button", name="Show the numbers").click()
    table = page.locator(".posviz-numbers table")
    table.wait_for()
    assert table.locator("caption").inner_text() == "PE(pos)·PE(pos+k) at pos = 30, d_model = 64"
    headers = table.locator("th[scope='col']").all_inner_texts()
    assert headers == ["offset k", "from rows", "Σ cos(ωᵢk)"]
    rows = table.locator("tbody tr")
    assert rows.count() == 11  # k = 0, 10, ..., 100
    # PE(pos)·PE(pos) = Σ sin² + cos² = d_model / 2, whatever pos is.
    assert rows.nth(0).locator("th").inner_text() == "0"
    assert rows.nth(0).locator("td").all_inner_texts() == ["32.000", "32.000"]
    # The table follows the sliders.
    page.locator(".posviz-figure .noUi-handle").nth(1).focus()
    page.keyboard.press("ArrowRight")  # d_model 64 → 80
    page.locator(".posviz-numbers caption", has_text="d_model = 80").wait_for()
    assert page.locator(".posviz-numbers tbody tr").nth(0).locator("td").all_inner_texts() == [
        "40.000",
        "40.000",
    ]


# Every element's transition and animation durations, through shadow roots.
MOTION_JS = """() => {
  const found = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      const style = getComputedStyle(e);
      for (const d of [style.transitionDuration, style.animationDuration].join(',').split(','))
        if (parseFloat(d) > 0) found.push(e.className + ' ' + d.trim());
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  return found;
}"""


def test_reduced_motion_turns_transitions_off(served, page):
    page.goto(url(served, "figure-96"))
    settle(page)
    page.evaluate(  # something that animates, as a page component might
        "() => { const d = document.createElement('div'); d.className = 'moving';"
        " d.style.transition = 'opacity 1s'; document.body.appendChild(d); }"
    )
    assert "moving 1s" in page.evaluate(MOTION_JS)
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(MOTION_JS) == []


def test_print_hides_controls_and_carries_the_deep_link(served, page):
    page.goto(url(served, "figure-710?pos=24"))
    settle(page)
    link = page.locator(".posviz-deeplink a")
    expect(link).to_be_hidden()
    expect(page.locator(".posviz-controls").first).to_be_visible()
    page.emulate_media(media="print")
    # The print styles apply on the next style pass: wait on the state, never one look.
    expect(link).to_be_visible()
    expect(page.locator(".posviz-controls").first).to_be_hidden()
    expect(page.locator(".posviz-numbers-toggle")).to_be_hidden()
    assert link.inner_text() == f"{served}/figure-710?pos=24&d_model=128"
    expect(page.locator("[name='posviz-710-hands'], .posviz-plot").first).to_be_visible()


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.mark.parametrize("ratio", [1, 1.5])
def test_a_plot_switched_to_dark_keeps_no_edge_of_its_light_paint(served, browser, blocked, ratio):
    """At a pixel ratio of 1 (Playwright's default), BokehJS clears a canvas from half
    a pixel in, so a plot painted light and then dark kept a light line along its top
    and left; the page script now clears the whole canvas before the dark paint. At 1.5
    (a screen at 150 %) the half pixel falls on 0.75 of a device pixel."""
    context = sealed_context(browser, blocked, device_scale_factor=ratio)
    page = new_page(context)
    page.emulate_media(color_scheme="light")
    page.goto(url(served, "figure-2104"))
    settle(page)
    wait_for_plot(page, "posviz-2104-against")
    assert page.evaluate("devicePixelRatio") == ratio
    page.emulate_media(color_scheme="dark")
    page.wait_for_function(PLOTS_THEMED_JS, arg=DARK["paper"])
    page.wait_for_function(  # the dark repaint, which follows the models' change
        f"(paper) => {{ const seen = ({CANVAS_EDGES_JS})(paper);"
        " return seen.canvases > 0 && seen.painted === seen.canvases; }",
        arg=DARK["paper"],
    )
    edges = page.evaluate(CANVAS_EDGES_JS, DARK["paper"])
    context.close()
    assert edges == {"canvases": 2, "painted": 2, "wrong": []}
    assert blocked == []


def test_dark_scheme_colours_the_page_and_the_plots(served, page):
    page.emulate_media(color_scheme="dark")
    page.goto(url(served, "figure-710"))
    settle(page)
    wait_for_plot(page, "posviz-710-hands")
    page.wait_for_function(
        f"(n) => ({BACKGROUND_JS})(n) === {DARK['paper']!r}", arg="posviz-710-hands"
    )
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == rgb(DARK["paper"])
    heading = page.locator("h1", has_text="Clock hands")
    assert heading.evaluate("e => getComputedStyle(e).color") == rgb(DARK["ink"])
    # Back to light: the plots get their own colours again.
    page.emulate_media(color_scheme="light")
    page.wait_for_function(f"(n) => ({BACKGROUND_JS})(n) === '#ffffff'", arg="posviz-710-hands")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    before = fingerprint(page, "posviz-710-hands")
    assert before is not None


# --- the static export ------------------------------------------------------------


LIVE_JS = "() => document.body.dataset.posviz !== 'loading'"


@pytest.mark.parametrize("name", ONE_PER_KIND)
def test_no_serious_axe_violations_in_the_export(reader, name):
    """Each page joins the reader's runtime (conftest's ``reader``): it goes live as a
    reader's next tab does, without a cold start of its own."""
    site, context, blocked = reader
    page = new_page(context)
    try:
        page.goto(f"{site}/{name}.html")
        page.wait_for_function(LIVE_JS, timeout=120_000)
        assert page.evaluate("document.body.dataset.posviz") == "live"
        settle(page, "load")
        assert axe_serious(page) == []
        assert blocked == [] and page.errors == []
    finally:
        page.close()
