"""Bytes in the order a reader needs them (issue 29), on a throttled link.

The export is served through benchmarks/link.py's link (fast settings: 40 Mbit/s,
20 ms a response), which logs when each response started and ended. A reader's
page (Panel on demand, as readers get it) must take: its own scripts; then the
frames; then the runtime's files (Pyodide's core, numpy, posviz); and Panel's
wheels not at all until something needs Panel, and then only after the numpy
tier's files are in.
"""

import pytest

from benchmarks.link import throttled
from benchmarks.link_tiers import panel_files
from tests.support.browser import sealed_context

pytestmark = pytest.mark.browser
TOPIC = "topic-positional-encoding.html"
SETTLED = 180_000  # ms: a cold Pyodide start on a loaded machine, numpy tier included
# The page's own scripts: what connect.js's #posviz-page pins, and the posviz scripts.
PAGE_SCRIPTS = ("static/", "posviz-connect-", "posviz-page-", "posviz-frames.js")


def is_runtime(path: str) -> bool:
    return path.startswith(("pyodide/", "wheels/"))


def order(log: list[dict]) -> dict:
    """When each tier's files started and ended, on the link's clock."""
    tiers = {
        "page": [
            e for e in log if e["path"].startswith(PAGE_SCRIPTS) and e["path"].endswith(".js")
        ],
        "frames": [e for e in log if e["path"].startswith("frames/")],
        "runtime": [e for e in log if is_runtime(e["path"])],
    }
    return {
        name: {
            "first start": min(e["start"] for e in entries),
            "last end": max(e["end"] for e in entries),
        }
        for name, entries in tiers.items()
        if entries
    }


def check_tiers(log: list[dict], frame_files: int) -> None:
    """Page scripts, then frames, then runtime: none starts before the one before is in."""
    found = order(log)
    assert len([e for e in log if e["path"].startswith("frames/")]) == frame_files, found
    assert found["page"]["last end"] <= found["frames"]["first start"], (
        f"a frame file started before the page's scripts were in: {found}"
    )
    assert found["frames"]["last end"] <= found["runtime"]["first start"], (
        f"a runtime file started before the frames were in: {found}"
    )


@pytest.fixture
def reader(browser):
    """A reader's profile: Panel on demand, no service worker (the first visit)."""
    blocked: list = []
    context = sealed_context(browser, blocked, panel="on demand", service_workers="block")
    yield context
    context.close()
    assert blocked == []


def frame_count(page) -> int:
    return page.evaluate(
        "() => 2 * Object.keys(JSON.parse("
        "document.getElementById('posviz-frames').textContent).figures).length"
    )


def test_frames_come_before_the_runtime_and_panel_not_at_all(built_site, reader):
    with throttled(built_site, 40, 20) as (base, link):
        page = reader.new_page()
        page.goto(f"{base}/{TOPIC}")
        page.wait_for_function(
            "() => ['numpy', 'live', 'error'].includes(document.body.dataset.posviz)",
            timeout=SETTLED,
        )
        state = page.evaluate("document.body.dataset.posviz")
        assert state == "numpy", f"the topic went {state!r}, not to its numpy tier"
        log = [dict(e) for e in link.log]
        check_tiers(log, frame_count(page))
        sent = [e["path"] for e in log if e["path"] in panel_files(built_site)]
        assert sent == [], f"Panel's files crossed the link though nothing needed them: {sent}"


def test_panel_loads_on_demand_after_the_numpy_tier(built_site, reader):
    with throttled(built_site, 40, 20) as (base, link):
        page = reader.new_page()
        page.goto(f"{base}/figure-710.html")
        page.wait_for_function("() => document.body.dataset.posviz === 'numpy'", timeout=SETTLED)
        asked = link.now()
        page.evaluate("window.posvizNeedPanel()")
        page.wait_for_function(
            "() => ['live', 'error'].includes(document.body.dataset.posviz)", timeout=SETTLED
        )
        assert page.evaluate("document.body.dataset.posviz") == "live", page.locator(
            ".posviz-status"
        ).all_inner_texts()
        panel = panel_files(built_site)
        wheels = [e for e in link.log if e["path"] in panel]
        numpy_tier = [e for e in link.log if is_runtime(e["path"]) and e["path"] not in panel]
        assert wheels, "Panel went live without its wheels crossing the link"
        assert min(e["start"] for e in wheels) >= asked, "a Panel wheel was asked before the page"
        assert min(e["start"] for e in wheels) >= max(e["end"] for e in numpy_tier), (
            "a Panel wheel started before the numpy tier's files were in"
        )
