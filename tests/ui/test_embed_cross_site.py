"""A figure embedded on another site goes live, whatever the browser does with its storage.

The embedding page is on ``localhost:P`` and the iframe on ``127.0.0.1:P``: two
sites on loopback, so the figure is a third-party frame. Chromium gives such a
frame one of three things, and each test first proves which one it got:

- blocked: the harness's own profile (Playwright turns storage partitioning
  off, and Chromium blocks third-party cookies by default). ``localStorage``
  throws, ``navigator.locks.request`` rejects and a ``SharedWorker`` fires
  ``error`` before any message;
- partitioned: storage partitioning on (as Chromium ships it, and as Firefox
  and Safari do by default): the frame gets storage of its own, not the site's;
- allowed: a profile whose settings allow third-party cookies: the frame gets
  the site's own storage.

Network blocked in every case.
"""

import json
from urllib.parse import urlparse

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, seal, static_server
from tests.support.pages import (
    Blocked,
    new_page,
    press_on_slider,
    wait_for_change,
    wait_for_plot,
)

pytestmark = pytest.mark.browser
# Third-party storage rules and storage partitioning live in Chrome's browser layer,
# which Chromium's headless shell leaves out (there every frame keeps its storage).
READERS_CHROMIUM = True
LIVE = 120_000
BARS = "posviz-96-bars"
HANDS = "posviz-710-hands"

# The other site: a page that embeds figure 96 from the posviz site's other name.
EMBEDDER = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Someone else's page</title></head>
<body><h1>Someone else's page</h1>
<iframe id="figure" width="100%" height="560" style="border:0" title="Where the parameters go">
</iframe>
<script>
document.getElementById("figure").src = `http://127.0.0.1:${location.port}/figure-96.html`;
</script></body></html>
"""

# What the frame may use, read in the frame itself.
STORAGE_JS = """async () => {
  const found = {};
  try { localStorage.getItem("x"); found.localStorage = "ok"; }
  catch (error) { found.localStorage = error.name; }
  try { await navigator.locks.request("posviz probe", () => null); found.locks = "ok"; }
  catch (error) { found.locks = error.name; }
  found.storageAccess = await document.hasStorageAccess();
  return found;
}"""


@pytest.fixture(scope="module")
def two_sites(built_site):
    """The export on 127.0.0.1:P, with the embedding page; localhost:P is the other site."""
    with static_server(built_site, {"embedder.html": lambda _: EMBEDDER}) as url:
        yield url


@pytest.fixture
def chromium(browser):
    """Playwright's Chromium launcher, to start browsers other than the session's."""
    return browser.browser_type


def embedded_figure(page, two_sites: str):
    """Open the other site's page; the figure's frame (loaded, as the page's load waits for it)."""
    port = urlparse(two_sites).port
    page.goto(f"http://localhost:{port}/embedder.html")
    frame = page.locator("#figure").element_handle().content_frame()
    assert frame.url.startswith(f"{two_sites}/figure-96.html"), frame.url
    return frame


def goes_live_and_answers(frame, plot: str):
    frame.wait_for_function(
        "() => document.body && ['live', 'error'].includes(document.body.dataset.posviz)",
        timeout=LIVE,
    )
    status = frame.locator(".posviz-status").all_inner_texts()
    assert frame.evaluate("document.body.dataset.posviz") == "live", status
    before = wait_for_plot(frame, plot)
    press_on_slider(frame, 0, 0)
    wait_for_change(frame, plot, before)
    return frame.evaluate("window.posvizRuntime")


def live_with_storage(context, two_sites: str, storage: dict, premise: str):
    """The embedded figure in a new page of ``context``, live and answering.

    First proves the premise: the frame's storage is ``storage``. Returns the
    runtime the figure joined, and the page with the errors it raised.
    """
    page = new_page(context)
    frame = embedded_figure(page, two_sites)
    assert frame.evaluate(STORAGE_JS) == storage, f"the premise: {premise}"
    return goes_live_and_answers(frame, BARS), page


def test_blocked_storage_the_figure_goes_live_in_a_dedicated_worker(browser, two_sites):
    blocked = Blocked()
    context = seal(browser.new_context(), blocked)
    try:
        blocked_storage = {
            "localStorage": "SecurityError",
            "locks": "SecurityError",
            "storageAccess": False,
        }
        runtime, page = live_with_storage(
            context, two_sites, blocked_storage, "this frame's storage is blocked"
        )
        assert runtime["shared"] is False  # the SharedWorker was refused
        # A first-party page in the same profile still gets the shared runtime.
        first = context.new_page()
        first.goto(f"{two_sites}/figure-710.html")
        own = goes_live_and_answers(first.main_frame, HANDS)
        assert own["shared"] is True
        assert blocked == [] and page.errors == []
    finally:
        context.close()


def test_partitioned_storage_the_figure_goes_live_in_its_own_shared_runtime(chromium, two_sites):
    # Any --disable-features replaces Playwright's list, which turns storage
    # partitioning off; HttpsUpgrades stays off so that http://localhost stays http.
    browser = chromium.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--disable-features=HttpsUpgrades"]
    )
    blocked = Blocked()
    try:
        context = seal(browser.new_context(), blocked)
        own_storage = {"localStorage": "ok", "locks": "ok", "storageAccess": False}
        runtime, _ = live_with_storage(
            context, two_sites, own_storage, "this frame has storage of its own, not the site's"
        )
        assert runtime["shared"] is True
        assert blocked == []
    finally:
        browser.close()


def test_allowed_storage_the_figure_goes_live_in_the_shared_runtime(chromium, two_sites, tmp_path):
    # A profile that allows third-party cookies (Chromium's own settings page
    # writes these preferences).
    (tmp_path / "Default").mkdir()
    (tmp_path / "Default" / "Preferences").write_text(
        json.dumps(
            {
                "profile": {
                    "cookie_controls_mode": 0,
                    "block_third_party_cookies": False,
                    "default_content_setting_values": {"cookies": 1},
                }
            }
        )
    )
    blocked = Blocked()
    context = seal(
        chromium.launch_persistent_context(
            str(tmp_path), executable_path=CHROMIUM, args=CHROMIUM_ARGS
        ),
        blocked,
    )
    try:
        sites_storage = {"localStorage": "ok", "locks": "ok", "storageAccess": True}
        runtime, _ = live_with_storage(
            context, two_sites, sites_storage, "this frame has the site's own storage"
        )
        assert runtime["shared"] is True
        assert blocked == []
    finally:
        context.close()
