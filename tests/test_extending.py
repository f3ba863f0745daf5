"""Growing the site takes files, not code: a fifth figure is one new module, and
a second topic (with a new page) is Markdown in the content folder."""

import shutil
import sys
from pathlib import Path

import panel as pn
import pytest

import posviz.figures
from posviz import content
from posviz.compose import parts, views
from posviz.compose import routes as routing
from posviz.drawing import plots
from tests.support.compose import (
    all_text,
    attribution,
    links,
    live_figures,
    page_roots,
    plain,
    texts,
)

# a second topic's content rendered through every route: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content"
# The fifth figure is the one CONTRIBUTING.md shows a newcomer, so the two cannot drift.
FIFTH = (
    (ROOT / "CONTRIBUTING.md")
    .read_text("utf-8")
    .split("```python\n# src/posviz/figures/squares.py\n", 1)[1]
    .split("```", 1)[0]
)


@pytest.fixture
def fifth_figure(tmp_path, monkeypatch):
    """posviz.figures with one more module in it, as if squares.py were added there."""
    if (Path(posviz.figures.__file__).parent / "squares.py").exists():
        pytest.skip(
            "CONTRIBUTING's example is already src/posviz/figures/squares.py: "
            "the whole suite checks it there (tests/test_newcomer.py does that in a copy)"
        )
    before = set(posviz.figures.FIGURES)
    folder = tmp_path / "more_figures"
    folder.mkdir()
    (folder / "squares.py").write_text(FIFTH, "utf-8")
    monkeypatch.setattr(posviz.figures, "__path__", [*posviz.figures.__path__, str(folder)])
    cached = posviz.figures.__dict__.pop("FIGURES", None)
    monkeypatch.setenv("POSVIZ_CONTENT", str(CONTENT))
    monkeypatch.delenv("POSVIZ_EXPORT", raising=False)
    views.library.cache_clear()
    yield lambda name: (sys.modules.get(name), before)
    posviz.figures.__dict__.pop("FIGURES", None)
    if cached is not None:
        posviz.figures.FIGURES = cached
    sys.modules.pop("posviz.figures.squares", None)
    views.library.cache_clear()


def test_a_fifth_figure_is_one_new_module(fifth_figure):
    from posviz.figures import FIGURES

    module, before = fifth_figure("posviz.figures.squares")
    squares = module.Squares
    assert FIGURES[5] is squares
    assert posviz.figures.Squares is squares
    assert posviz.figures.figure_ids() == set(FIGURES) == before | {5}
    library = content.load(CONTENT)  # content may now place it with "::: figure 5"
    order = routing.figure_order(library)
    shown = {fid for page in library.pages.values() for fid in page.figures}
    assert 5 in order[len(shown) :]  # no page shows it: after the figures pages show
    by_name = {route.name: route for route in routing.routes(library)}
    assert by_name["figure-5"].title == squares.title
    assert by_name["gallery"].figures[-1] == 5


def test_a_figure_no_page_uses_has_its_view_and_a_gallery_entry_without_a_from_line(
    fifth_figure,
):
    layout, route = views.view("figure-5")
    assert route.kind == "figure"
    [figure] = live_figures(layout)
    assert figure.figure_id == 5 and figure.n == 4
    text = all_text(layout)
    assert "Squares grow faster than their sides" in text
    assert "From " not in text
    found = [link for p in texts(layout) for link in links(p)]
    # No way back to a page; only the figure's own deep link, printed for print.
    assert found == [("figure-5?n=4&slope=10", "figure-5?n=4&slope=10")]

    gallery, _ = views.view("gallery")
    blocks = gallery.islands()
    ids = [b.figure.figure_id for b in blocks]
    assert 5 in ids
    froms = {
        figure_id: plain(attribution(block)).startswith("From ")
        for figure_id, block in zip(ids, blocks, strict=True)
    }
    library = content.load(CONTENT)
    assert froms == {figure_id: library.home_of(figure_id) is not None for figure_id in ids}
    assert froms[5] is False

    home, _ = views.view("index")
    assert ("figure-5", "Squares grow faster than their sides") in [
        link for p in texts(home) for link in links(p)
    ]


def test_two_figures_with_one_id_are_refused_naming_both(fifth_figure, tmp_path):
    source = Path(posviz.figures.__path__[-1]) / "squares.py"
    source.write_text(source.read_text("utf-8").replace("figure_id = 5", "figure_id = 710"))
    with pytest.raises(ValueError) as caught:
        posviz.figures.discover()
    message = str(caught.value)
    assert "figure id 710 is claimed by both" in message
    assert "posviz.figures.clock_hands.ClockHands" in message
    assert "posviz.figures.squares.Squares" in message


def test_a_figure_module_that_does_not_import_is_one_line_naming_its_file_and_line(
    fifth_figure, tmp_path, capsys
):
    """A newcomer's slider that cannot work (an even slider from an odd bound): `posviz
    check` and `posviz build` each say where in one line, with no traceback."""
    from posviz.cli import main
    from posviz.export.command import build

    source = Path(posviz.figures.__path__[-1]) / "squares.py"
    text = source.read_text("utf-8")
    text = text.replace("import Figure, Plot, Slider", "import EvenSlider, Figure, Plot, Slider")
    text = text.replace("slope = Slider(default=10,", "slope = EvenSlider(default=10,")
    source.write_text(text, "utf-8")
    line = text.splitlines().index(next(t for t in text.splitlines() if "slope = Even" in t)) + 1
    said = (
        f"{source}:{line}: ValueError: EvenSlider(default=10, bounds=(1, 30), step=2): an even "
        "slider needs an even lower bound and an even step (2 if not given), or its steps "
        "reach odd values"
    )
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == ["posviz: a figure module does not import:", f"  {said}"]
    assert build(tmp_path / "site", figures=[5]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines()[-1] == f"posviz build: failed: {said}"
    assert "Traceback" not in out + err


def test_a_figure_module_with_a_syntax_error_is_named_at_its_line(fifth_figure):
    source = Path(posviz.figures.__path__[-1]) / "squares.py"
    lines = source.read_text("utf-8").splitlines()
    at = next(n for n, text in enumerate(lines) if "def frame(self):" in text)
    lines[at] = lines[at].replace("def frame(self):", "def frame(self)")
    source.write_text("\n".join(lines), "utf-8")
    with pytest.raises(posviz.figures.FigureModuleError) as caught:
        posviz.figures.discover()
    assert str(caught.value).startswith(f"{source}:{at + 1}: SyntaxError: ")


# --- a second topic -------------------------------------------------------------------

SECOND_TOPIC = """\
---
slug: attention-on-grids
title: Attention on grids
category: Images
intro: How attention is made affordable on images, and how a pixel learns where it sits.
read_first: [attention-is-all-you-need, query-key-value]
pages: [attention-meets-pixels, clocks-on-a-grid]
---
Read the Transformer page first, then the pixels page.
"""

NEW_PAGE = """\
---
slug: clocks-on-a-grid
title: Clocks on a grid
kind: Read
builds_on: [attention-meets-pixels]
tags: [Vision, Efficient attention]
summary: The sinusoidal clock hands, once per axis of the image.
---

## 1. One clock per axis

Give each pixel the encoding of its row and the encoding of its column.

::: figure 710

Then a pixel's neighbours differ from it by a fixed rotation along each axis.
"""


@pytest.fixture
def two_topics(tmp_path, monkeypatch):
    """The real content plus a second topic and a page only it lists, in a temp folder."""
    root = tmp_path / "content"
    shutil.copytree(CONTENT, root)
    (root / "topics" / "attention-on-grids.md").write_text(SECOND_TOPIC, "utf-8")
    (root / "pages" / "clocks-on-a-grid.md").write_text(NEW_PAGE, "utf-8")
    monkeypatch.setenv("POSVIZ_CONTENT", str(root))
    monkeypatch.delenv("POSVIZ_EXPORT", raising=False)
    views.library.cache_clear()
    yield content.load(root)
    views.library.cache_clear()


def test_a_second_topic_is_on_home(two_topics):
    layout, _ = views.view("index")
    found = [link for p in texts(layout) for link in links(p)]
    assert found[:2] == [
        ("topic-attention-on-grids", "Attention on grids"),
        ("topic-positional-encoding", "Positional encoding"),
    ]
    assert ("page-clocks-on-a-grid", "Clocks on a grid") in found
    assert "Images" in all_text(layout) and "Mechanisms" in all_text(layout)


def test_a_second_topic_has_its_own_reading_order_figures_and_tags(two_topics):
    layout, route = views.view("topic-attention-on-grids")
    assert route.title == "Attention on grids"
    text = all_text(layout)
    assert "Topic · Images" in text and "How attention is made affordable" in text
    [reading] = [p for p in texts(layout) if "In reading order" in p]
    # Listed Transformer first, but it builds on query-key-value, which goes first.
    assert [target for target, _ in links(reading)] == [
        "page-query-key-value",
        "page-attention-is-all-you-need",
    ]
    assert [f.figure_id for f in live_figures(layout)] == [7256, 4121, 710]
    attributions = [plain(attribution(block)) for block in layout.islands()]
    assert attributions[-1] == "From Clocks on a grid › 1. One clock per axis"
    [tags] = [p for p in texts(layout) if "Tags that go with it" in p]
    assert [text for _, text in links(tags)] == [
        "Efficient attention 2",
        "Self-attention 1",
        "Vision 1",
    ]

    # The first topic is unchanged by the second.
    first, _ = views.view("topic-positional-encoding")
    site = content.load(CONTENT)
    shown = [u.figure_id for u in site.figure_uses(site.topics["positional-encoding"])]
    assert [f.figure_id for f in live_figures(first)] == list(dict.fromkeys(shown))


def test_with_two_topics_every_route_renders(two_topics):
    from bokeh.document import Document

    names = [route.name for route in routing.routes(two_topics)]
    assert {"topic-attention-on-grids", "page-clocks-on-a-grid", "tag-vision"} <= set(names)
    for route in routing.routes(two_topics):
        layout, _ = views.view(route.name)
        assert isinstance(layout, parts.View)
        assert [f.figure_id for f in live_figures(layout)] == list(route.figures), route.name
        roots = page_roots(layout)
        assert set(roots) == {"notice", *(f"figure-{f}" for f in route.figures)}, route.name
        for root in roots.values():
            root.get_root(Document())  # the Bokeh models build


def test_the_fifth_figure_steps_by_its_frame_to_what_a_fresh_plot_draws(fifth_figure):
    import holoviews as hv
    import numpy as np
    from bokeh.document import Document

    from posviz.figures import FIGURES

    squares = FIGURES[5]
    assert squares is fifth_figure("posviz.figures.squares")[0].Squares
    figure = squares()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))

    def named(models):
        return {m.name: m for m in models if (m.name or "").startswith("posviz-5-")}

    for n, slope in ((1, 30), (13, 1), (20, 7)):
        figure.param.update(n=n, slope=slope)
        live = named(doc.models)
        fresh = named(hv.render(plots(squares(n=n, slope=slope))[0]).references())
        drawn = {"posviz-5-plot", "posviz-5-squares", "posviz-5-line"}
        assert (
            live.keys()
            == fresh.keys()
            == drawn | {f"{n}:renderer" for n in drawn - {"posviz-5-plot"}}
        )
        assert live["posviz-5-plot"].title.text == fresh["posviz-5-plot"].title.text
        assert live["posviz-5-plot"].title.text == f"{n}² = {n * n}"
        np.testing.assert_array_equal(
            live["posviz-5-line"].data["height"], slope * np.arange(1, n + 1)
        )
        for column in ("side", "square"):
            np.testing.assert_array_equal(
                live["posviz-5-squares"].data[column], fresh["posviz-5-squares"].data[column]
            )
        np.testing.assert_array_equal(
            live["posviz-5-squares"].data["square"], np.arange(1, n + 1) ** 2
        )
