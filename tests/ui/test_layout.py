"""Every screen: no sideways scroll, plots inside their cards, controls above when narrow."""

import pytest
from playwright.sync_api import expect

from posviz.compose.routes import routes
from posviz.content import load
from posviz.drawing import model_name, watched_plot
from posviz.drawing.controls import group_title_css
from posviz.figures import FIGURES
from tests.oracles import oracle_for
from tests.support.browser import patient
from tests.support.pages import wait_for_plot

pytestmark = pytest.mark.browser

# A phone, a tablet, a laptop, and the width of a figure embedded in a docs page.
SIZES = [(390, 844), (768, 1024), (1280, 800), (620, 900)]
ROUTES = [route for route in routes(load()) if route.kind != "home"]

# Each figure card and, inside it, the box of each plot and of each canvas drawn.
BOXES_JS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const deep = (root, selector, out = []) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.matches(selector)) out.push(e);
      if (e.shadowRoot) deep(e.shadowRoot, selector, out);
    }
    return out;
  };
  return deep(document, '.posviz-figure-block').map((card) => ({
    card: box(card),
    plots: deep(card.shadowRoot || card, '.posviz-plot').map(box),
    // A hidden legend's swatches (display: none) have no box to place.
    canvases: deep(card.shadowRoot || card, 'canvas').filter((c) => c.getClientRects().length)
      .map(box),
  }));
}"""


def first_plot_name(route) -> str | None:
    """The named plot of the route's last figure that a step redraws, if it names one."""
    if not route.figures:
        return None
    figure = FIGURES[route.figures[-1]]()
    return model_name(figure, watched_plot(figure))


def open_drawn(page, url: str, route) -> None:
    """Open ``url`` and wait until the route's figures are drawn."""
    page.goto(url)
    plot = first_plot_name(route)
    if plot:
        wait_for_plot(page, plot)
    if route.figures:
        page.locator(".posviz-plot canvas:not(.bk-glyph)").last.wait_for()
    else:
        page.wait_for_load_state("networkidle")


def resized(page, width: int, height: int) -> None:
    """The window at ``width`` × ``height``, once Bokeh has laid the page out for it."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(STABLE_JS, timeout=30_000)


@pytest.fixture
def sized(browser, blocked):
    contexts = []

    def make(width, height):
        context = patient(browser.new_context(viewport={"width": width, "height": height}))
        context.route(
            "**/*",
            lambda r: (
                r.continue_()
                if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:"))
                else (blocked.append(r.request.url), r.abort())
            ),
        )
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


# Resolves once the figure cards' boxes have stayed the same for five animation
# frames: Bokeh has finished laying the page out for the window's size.
STABLE_JS = (
    """() => new Promise((resolve) => {
  const boxes = """
    + BOXES_JS
    + """;
  let last = null, same = 0;
  const tick = () => {
    const now = JSON.stringify(boxes());
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= 5) resolve(true); else requestAnimationFrame(tick);
  };
  tick();
})"""
)


@pytest.mark.parametrize("route", ROUTES, ids=[r.name for r in ROUTES])
def test_fits_the_width_and_plots_stay_in_their_cards(served, sized, blocked, route):
    # Opened at the first (phone) width, as a phone opens it, then resized through
    # the others, as a rotated tablet or a dragged window is: one load per route.
    page = sized(*SIZES[0])
    open_drawn(page, f"{served}/{route.name}", route)
    for width, height in SIZES:
        resized(page, width, height)
        where = f"{route.name} at {width}px"
        sizes = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert sizes[0] <= sizes[1], f"{where} scrolls sideways: {sizes}"
        cards = page.evaluate(BOXES_JS)
        assert len(cards) == len(route.figures), where
        for card in cards:
            assert card["card"]["right"] <= width, where
            assert len(card["plots"]) >= 1, where
            for inner in card["plots"] + card["canvases"]:
                assert inner["left"] >= card["card"]["left"] - 0.5, (where, card)
                assert inner["right"] <= card["card"]["right"] + 0.5, (where, card)
    assert blocked == []


def test_controls_go_above_the_plot_when_narrow_and_beside_it_when_wide(served, sized):
    positions = {}
    for width, height in [(390, 844), (1280, 800)]:
        page = sized(width, height)
        page.goto(f"{served}/figure-96")
        wait_for_plot(page, "posviz-96-bars")
        controls = page.locator(".posviz-controls").first.bounding_box()
        plot = page.locator(".posviz-plot").first.bounding_box()
        positions[width] = (controls, plot)
    narrow_controls, narrow_plot = positions[390]
    assert narrow_controls["y"] + narrow_controls["height"] <= narrow_plot["y"] + 1
    wide_controls, wide_plot = positions[1280]
    assert wide_controls["x"] + wide_controls["width"] <= wide_plot["x"]
    assert abs(wide_controls["y"] - wide_plot["y"]) < 40
    # The plot scales to its container: narrower on the phone, and within it.
    assert narrow_plot["width"] < wide_plot["width"]
    assert narrow_plot["x"] >= 0 and narrow_plot["x"] + narrow_plot["width"] <= 390


# Each figure's plots as designed (canvas width, height in px; 4121's square
# 300 px frames get 30 px more for their titles). The grids of square cells
# scale with the screen, never past the design, and keep their shape; line and
# bar plots stretch to the width (at most 640 px) and keep their height, so a
# phone still reads them.
def designed(figure_id: int):
    """The plot sizes the figure's oracle declares (``PLOT_SIZES``), or a skip saying so."""
    cls = FIGURES[figure_id]
    oracle = oracle_for(cls)
    sizes = getattr(oracle, "PLOT_SIZES", None)
    if sizes is None:
        stem = cls.__module__.rsplit(".", 1)[-1]
        pytest.skip(
            f"{cls.__name__} (figure {figure_id}) declares no designed plot sizes, so its "
            f"shape is not checked: declare PLOT_SIZES = [(width, height), ...] in "
            f"tests/oracles/{stem}.py to check it"
        )
    square = getattr(oracle, "SQUARE_CELLS", False)  # for every plot, or one per plot
    return sizes, square if isinstance(square, list) else [square] * len(sizes)


@pytest.mark.parametrize("figure_id", sorted(FIGURES))
def test_plots_keep_a_readable_shape_at_every_width(served, sized, figure_id):
    design, square_cells = designed(figure_id)
    route = next(r for r in ROUTES if r.name == f"figure-{figure_id}")
    page = sized(*SIZES[0])
    open_drawn(page, f"{served}/{route.name}", route)
    for width, height in SIZES:  # one load, then each width (see the test above)
        resized(page, width, height)
        check_shape(page, figure_id, width, design, square_cells)


def check_shape(page, figure_id, width, design, square_cells):
    [card] = page.evaluate(BOXES_JS)
    drawn = [(p["right"] - p["left"], p["bottom"] - p["top"]) for p in card["plots"]]
    assert len(drawn) == len(design)
    for (w, h), (design_w, design_h), square in zip(drawn, design, square_cells, strict=True):
        where = f"figure {figure_id} at {width}px: {w:.0f}×{h:.0f} px"
        if square:
            assert w <= design_w + 1, f"{where}, wider than its design {design_w}"
            assert abs(h - w * design_h / design_w) <= 2, (
                f"{where}, not the shape of {design_w}×{design_h}"
            )
        else:
            assert w <= 641, f"{where}, wider than 640"
            assert abs(h - design_h) <= 1, f"{where}, not its designed height {design_h}"


@pytest.mark.parametrize("figure_id", [2306, 4121])
def test_each_button_group_shows_its_title_above_and_is_named_by_it(served, page, figure_id):
    """A row (2306) and a column (4121) of buttons: the parameter's label is drawn above
    the buttons, and a screen reader finds the group by it, holding the choices' buttons."""
    figure = FIGURES[figure_id]()
    groups = [name for name, spec in figure.widgets.items() if "buttons" in str(spec)]
    page.goto(f"{served}/figure-{figure_id}")
    for name in groups:
        label = figure.param[name].label
        group = page.get_by_role("group", name=label, exact=True)
        expect(group).to_be_visible()
        buttons = group.get_by_role("button")
        assert buttons.all_inner_texts() == list(figure.param[name].names), name
        drawn = group.evaluate("(g) => getComputedStyle(g, '::before').content")
        assert drawn == f'"{label}"', name
        top, first = group.bounding_box()["y"], buttons.first.bounding_box()["y"]
        assert 17 <= first - top <= 18, (name, top, first)  # one title line above them


def button_groups() -> list[tuple[int, str]]:
    """(figure, parameter) of every button group the figures have."""
    return [
        (figure_id, name)
        for figure_id, kind in sorted(FIGURES.items())
        for name, spec in kind().widgets.items()
        if "buttons" in str(spec)
    ]


@pytest.mark.parametrize("figure_id,name", button_groups())
def test_a_button_groups_description_opens_inside_the_window(served, page, figure_id, name):
    """Hovered, a group shows its parameter's doc in a tooltip that wraps, whole, inside
    a phone's window and a docs column's (Panel put it on one line to the group's right,
    where 1803's ran 680 px past a 390 px window)."""
    figure = FIGURES[figure_id]()
    label, doc = figure.param[name].label, " ".join(figure.param[name].doc.split())
    page.goto(f"{served}/figure-{figure_id}")
    group = page.get_by_role("group", name=label, exact=True)
    tip = page.locator(".bk-tooltip-content").filter(has_text=doc[:40])
    for width in (320, 700):
        resized(page, width, 900)
        page.mouse.move(0, 0)
        expect(tip).to_be_hidden()
        group.get_by_role("button").first.hover()
        expect(tip).to_be_visible()  # after Panel's delay
        box = tip.bounding_box()
        assert " ".join(tip.inner_text().split()) == doc
        assert 0 <= box["x"] and box["x"] + box["width"] <= width, (width, box)


# What the page script does with a group's drawn title (compose/page_script.js, fix).
TITLE_READ_BACK_JS = """() => {
  const group = document.querySelector('.bk-btn-group');
  return JSON.parse(getComputedStyle(group, '::before').content);
}"""


@pytest.mark.parametrize("label", ["base θ", 'say "hi"', "a\\b", "L_train · 10⁴"])
def test_a_group_title_reads_back_as_its_label_whatever_its_characters(page, label):
    """Chromium's own CSS parser reads the title the stylesheet draws, and the page
    script's reading of it gives the label back: no JSON escape (CSS reads ``\\u03b8``
    as "u03b8"), quotes and backslashes kept."""
    page.set_content(
        f"<style>{group_title_css(label)}</style><div class='bk-btn-group'><button>1</button></div>"
    )
    assert page.evaluate(TITLE_READ_BACK_JS) == label
