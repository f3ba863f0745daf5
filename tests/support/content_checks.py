"""What the suite checks on the real content, as one function any copy of it can be given.

Structure (routes, reading order, tags, listings) is tested on the fixture in
``tests/data/content_fixture``, which the tests own. The real content is
checked only for what must hold whatever an author writes: it validates (with
its declared numbers) and every route renders with its figures; plus the seed's
facts, by name: the topic's reading order, its four figures with their "From"
lines, and its tags with their counts (``/work/shared/seed``).
"""

import contextlib
import os
from pathlib import Path

from posviz import content
from posviz.cli import main
from posviz.compose import routes as routing
from posviz.compose import views
from posviz.figures import FIGURES
from tests.support.compose import attribution, links, live_figures, plain, texts

REAL = Path(__file__).resolve().parents[2] / "content"
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "content_fixture"

SEED_TOPIC = ("positional-encoding", "Positional encoding", "Mechanisms")
SEED_READING_ORDER = [
    "Paper · read first: Query, Key, Value — Dot-Product Attention from Scratch",
    "Read · read first: Attention Before Transformers — Score, Squash, Multiply",
]
SEED_FROM = {
    96: "From Attention Is All You Need — The Transformer, Block by Block › 2. The Encoder Layer",
    710: "From Attention Is All You Need — The Transformer, Block by Block › "
    "4. Embeddings and Positional Encoding",
    7256: "From Attention Meets Pixels — Windows, Axes and the First Fully Attentional Networks › "
    "1. Why n² Kills Images",
    4121: "From Attention Meets Pixels — Windows, Axes and the First Fully Attentional Networks › "
    "4. Axes: Attention One Axis at a Time",
}
SEED_TAGS = [("Self-attention", 2), ("Efficient attention", 1), ("Transformers", 1)]


@contextlib.contextmanager
def served_from(root: Path):
    """Views built as under ``posviz serve`` from the content folder ``root``."""
    saved = {name: os.environ.get(name) for name in ("POSVIZ_CONTENT", "POSVIZ_EXPORT")}
    os.environ["POSVIZ_CONTENT"] = str(root)
    os.environ.pop("POSVIZ_EXPORT", None)
    views.library.cache_clear()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        views.library.cache_clear()


def in_order(part: list, whole: list) -> bool:
    """``part`` occurs in ``whole`` in this order (other items may come between)."""
    rest = iter(whole)
    return all(item in rest for item in part)


def check_seed_facts(library: content.Library) -> None:
    """The seed's facts in the content model: reading order, the four figures, the tags."""
    slug, title, category = SEED_TOPIC
    topic = library.topics[slug]
    assert (topic.title, topic.category) == (title, category)
    order = [f"{p.kind} · read first: {p.title}" for p in library.reading_order(topic)]
    assert order == SEED_READING_ORDER
    uses = [
        (use.figure_id, f"From {use.page.title} › {use.section.heading}")
        for use in library.figure_uses(topic)
    ]
    assert uses[:4] == list(SEED_FROM.items()), "the seed's four figures come first, as placed"
    tags = library.tags(topic)
    assert [tag for tag in tags if tag in SEED_TAGS] == SEED_TAGS, tags


def check_seed_topic_view(layout) -> None:
    """The seed's facts as the topic page shows them: the same three, rendered."""
    [reading] = [p for p in texts(layout) if "In reading order" in p]
    assert [plain(item) for item in reading.split("<li>")[1:]] == SEED_READING_ORDER
    blocks = layout.islands()
    shown = [(b.figure.figure_id, plain(attribution(b))) for b in blocks[:4]]
    assert shown == list(SEED_FROM.items())
    [chips] = [p for p in texts(layout) if "Tags that go with it" in p]
    seed = [(routing.tag_route(tag), f"{tag} {count}") for tag, count in SEED_TAGS]
    assert in_order(seed, links(chips)) and set(seed) <= set(links(chips))


def check_every_route_renders(library: content.Library) -> None:
    """Each route of ``library`` builds (as served) with exactly its figures, each live."""
    for route in routing.routes(library):
        layout, built = views.view(route.name)
        assert built.name == route.name
        shown = [f.figure_id for f in live_figures(layout)]
        assert shown == list(route.figures), route.name
        assert all(type(f) is FIGURES[f.figure_id] for f in live_figures(layout)), route.name


def check_real_content(root: Path = REAL) -> None:
    """What the suite asks of real content: ``posviz check`` passes, the seed's facts stand,
    every route renders. Raises AssertionError naming what broke."""
    assert main(["check", "--content", str(root)]) == 0, f"posviz check fails on {root}"
    library = content.load(root)
    check_seed_facts(library)
    with served_from(root):
        check_every_route_renders(library)
        layout, _ = views.view(f"topic-{SEED_TOPIC[0]}")
        check_seed_topic_view(layout)
