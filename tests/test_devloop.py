"""`posviz serve --dev`'s bookkeeping: which routes an edit reaches, and the dev entry scripts.

The browser side (an edit showing in the open tab) is tests/ui/test_serve_dev.py.
"""

import json
import re
import shutil
from pathlib import Path

import pytest

from posviz import content
from posviz.compose import devloop
from posviz.compose.routes import GALLERY, HOME, routes

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def copy(tmp_path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(ROOT / "content", root)
    return root


def changed(before: dict, after: dict, half: str) -> set[str]:
    return {name for name in after if before.get(name, {}).get(half) != after[name][half]}


def test_the_dev_loop_knows_every_route_the_site_has(copy):
    library = content.load(copy)
    assert set(devloop.route_digests(library)) == {route.name for route in routes(library)}


def test_a_page_edit_reaches_that_page_its_readers_and_the_listings_only(copy):
    library = content.load(copy)
    before = devloop.route_digests(library)
    slug = "query-key-value"
    path = copy / "pages" / f"{slug}.md"
    path.write_text(path.read_text("utf-8").replace("\n## 2.", "\nOne more.\n\n## 2.", 1))
    edited = content.load(copy)
    after = devloop.route_digests(edited)

    # Written out from what each view reads (compose/views.py).
    page = edited.pages[slug]
    expected = {f"page-{slug}"}
    expected |= {f"page-{p.slug}" for p in edited.pages.values() if slug in p.builds_on}
    expected |= {f"figure-{f}" for f in page.figures}
    expected |= {HOME, GALLERY}
    expected |= {name for name in after if name.startswith(("topic-", "tag-"))}
    assert changed(before, after, "text") == expected
    assert changed(before, after, "code") == set()
    assert len(expected) < len(after)  # some routes are left alone


def test_a_figure_module_edit_reaches_the_routes_that_show_or_name_it(copy):
    library = content.load(copy)
    snapshot = devloop.code_snapshot()
    before = devloop.route_digests(library, snapshot=snapshot)
    figure_id = 710
    own = devloop.figure_files()[figure_id]
    assert [p.parent.name for p in own] == ["figures"]  # one module: model, frame, drawing
    edited = {**snapshot, own[-1]: "another sha256"}
    after = devloop.route_digests(library, snapshot=edited)

    expected = {HOME, GALLERY, f"figure-{figure_id}"}
    expected |= {name for name in after if name.startswith("tag-")}  # tags name every figure
    expected |= {f"page-{p.slug}" for p in library.pages.values() if figure_id in p.figures}
    expected |= {
        f"topic-{t.slug}"
        for t in library.topics.values()
        if figure_id in [f for f, _ in library.figures_shown(t)]
    }
    assert changed(before, after, "code") == expected
    assert changed(before, after, "text") == set()
    shared = next(p for p in snapshot if p.name == "views.py")
    everything = devloop.route_digests(library, snapshot={**snapshot, shared: "x"})
    assert changed(before, everything, "code") == set(after)  # other code: every route


def test_content_problems_keep_the_last_routes_and_name_file_and_line(copy, tmp_path):
    state = tmp_path / "state"
    said = []
    known = devloop.refresh(state, copy, None, said.append)
    assert json.loads((state / "state.json").read_text())["routes"] == known
    page = copy / "pages" / "query-key-value.md"
    page.write_text(page.read_text("utf-8").replace("\nkind: ", "\nkind: [\nkind: ", 1))
    assert devloop.refresh(state, copy, known, said.append) == known
    written = json.loads((state / "state.json").read_text())
    assert written["routes"] == known
    problems = written["problems"]
    assert problems and any(re.match(rf"{re.escape(str(page))}:\d+: ", p) for p in problems)
    assert all(any(p in line for line in said) for p in problems)  # the terminal says them too


def test_dev_entries_serve_home_the_gallery_and_every_other_route_by_pattern(tmp_path, copy):
    from posviz.serve import write_dev_entries

    scripts = write_dev_entries(tmp_path)
    assert {path.stem for path in scripts} == {HOME, GALLERY, devloop.ANY_ROUTE}
    pattern = re.compile(devloop.ANY_ROUTE)
    for route in routes(content.load(copy)):
        assert bool(pattern.fullmatch(route.name)) == (route.name not in (HOME, GALLERY))
    for outside in ["posviz-static", "static", "page-", "page-a/b", "ws", "page-A"]:
        assert not pattern.fullmatch(outside)


@pytest.mark.parametrize(
    "path, route",
    [
        ("/figure-4121", "figure-4121"),
        ("/figure-4121/", "figure-4121"),
        ("/figure-4121/ws", "figure-4121"),  # a session made from a late websocket
        ("/page-ws", "page-ws"),  # a slug that ends in "ws" is its own route
        ("/", ""),
    ],
)
def test_a_session_s_route_is_its_page_s_also_when_opened_by_the_websocket(path, route):
    assert devloop.route_of(path) == route
