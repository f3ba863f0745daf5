"""A topic and a tag over many pages show each figure once, naming every page that uses it.

The content is the repository's plus pages written here into a scratch copy,
each showing figures that other pages show too (issue 17, "pages that list figures").
"""

import re
import shutil
from pathlib import Path

import pytest

from posviz import content
from posviz.compose import routes as routing
from posviz.compose import views
from posviz.figures import Figure
from tests.support.compose import attribution, texts

CONTENT = Path(__file__).resolve().parents[1] / "content"
EXTRA = 6
SHARED = (710, 96)  # figures the real pages show too
PAGE = """---
slug: {slug}
title: Extra page {n}
kind: Read
builds_on: []
tags: [Extra tag]
summary: A page written by the test, showing figures other pages show too.
---

## 1. First

Text {n}.

::: figure {first}

## 2. Second

More text {n}.

::: figure {second}
"""


@pytest.fixture
def library(tmp_path, monkeypatch):
    root = tmp_path / "content"
    shutil.copytree(CONTENT, root)
    slugs = [f"extra-{n}" for n in range(EXTRA)]
    for n, slug in enumerate(slugs):
        text = PAGE.format(slug=slug, n=n, first=SHARED[0], second=SHARED[1])
        (root / "pages" / f"{slug}.md").write_text(text, "utf-8")
    topic = root / "topics" / "positional-encoding.md"
    lines = topic.read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("pages:"))
    real = re.findall(r"[\w-]+", lines[at].split(":", 1)[1])
    lines[at] = f"pages: [{', '.join(real + slugs)}]"
    topic.write_text("\n".join(lines) + "\n", "utf-8")
    monkeypatch.delenv("POSVIZ_EXPORT", raising=False)
    monkeypatch.setenv("POSVIZ_CONTENT", str(root))
    views.library.cache_clear()
    yield content.load(root)
    views.library.cache_clear()


def blocks(layout) -> list:
    return layout.islands()


def live(layout) -> list[Figure]:
    return [island.figure for island in layout.islands()]


def sources(markup: str) -> list[str]:
    """The page routes a "From …" line links to, once each, in order."""
    pages = re.findall(r'href="(page-[\w-]+)"', markup)
    return list(dict.fromkeys(pages))


def expected_sources(library, topic, figure_id) -> list[str]:
    """Independently of the views: each page of the topic whose sections show the figure."""
    return [
        f"page-{slug}"
        for slug in topic.pages
        if any(figure_id in section.figures for section in library.pages[slug].sections)
    ]


def test_a_topic_over_many_pages_shows_each_figure_once_with_all_its_sources(library):
    topic = library.topics["positional-encoding"]
    uses = library.figure_uses(topic)
    assert len(uses) > len({use.figure_id for use in uses})  # the scratch content repeats figures
    layout, _ = views.view("topic-positional-encoding")
    shown = [figure.figure_id for figure in live(layout)]
    assert sorted(shown) == sorted({use.figure_id for use in uses})
    assert len(shown) == len(set(shown))
    for block in blocks(layout):
        figure = block.figure
        assert sources(attribution(block)) == expected_sources(library, topic, figure.figure_id)
    route = next(r for r in routing.routes(library) if r.name == "topic-positional-encoding")
    assert sorted(route.figures) == sorted(set(route.figures))


def test_a_tag_over_many_pages_lists_each_figure_once_with_all_its_sources(library):
    layout, _ = views.view(routing.tag_route("Extra tag"))
    markup = "".join(texts(layout))
    items = re.findall(r"<li><span class='figure-id'>(\d+)</span>(.*?)</li>", markup)
    assert sorted(int(figure_id) for figure_id, _ in items) == sorted(SHARED)
    slugs = [f"page-extra-{n}" for n in range(EXTRA)]
    for _, item in items:
        assert sources(item) == slugs
    assert f"{len(SHARED)} figures appear on them" in markup


def test_a_figure_view_names_every_page_that_shows_it(library):
    layout, _ = views.view(routing.figure_route(710))
    [block] = blocks(layout)
    named = sources(attribution(block))
    pages_showing = [
        f"page-{page.slug}"
        for page in library.pages.values()
        if any(710 in section.figures for section in page.sections)
    ]
    assert named == pages_showing and len(named) == EXTRA + 1
