"""One Python per reader: the export's pages share one runtime (a SharedWorker).

Every page of one browser profile joins the same runtime and gets its own
document; window.posvizRuntime says which runtime a page joined, as which
connection, and whether Python was already running ("joined": "ready").
Headless Chromium, network blocked, the built export on loopback.
"""

import re
import time

import pytest
from playwright.sync_api import expect

from tests.support.pages import (
    STATUS_HISTORY_JS,
    fingerprint,
    new_page,
    press_on_slider,
    slider_title,
    wait_for_change,
    wait_for_plot,
)

pytestmark = pytest.mark.browser
LIVE = 120_000
HANDS = "posviz-710-hands"
BARS = "posviz-96-bars"
TOPIC = "topic-positional-encoding.html"


def wait_live(page):
    page.wait_for_function(
        "() => document.body && ['live', 'error'].includes(document.body.dataset.posviz)",
        timeout=LIVE,
    )
    state = page.evaluate("document.body.dataset.posviz")
    assert state == "live", page.locator(".posviz-status").all_inner_texts()


def runtime(page) -> dict:
    return page.evaluate("window.posvizRuntime")


def answers(page, plot: str, figure_index: int = 0):
    """A slider step redraws ``plot``: the page is really live."""
    before = wait_for_plot(page, plot)
    press_on_slider(page, figure_index, 0)
    return wait_for_change(page, plot, before)


def context_id(page) -> str:
    """The DevTools id of ``page``'s browser context (its profile)."""
    session = page.context.new_cdp_session(page)
    info = session.send("Target.getTargetInfo")["targetInfo"]
    session.detach()
    return info["browserContextId"]


def shared_workers(browser, site: str, profile: str | None = None) -> list[str]:
    """Target ids of the runtimes this site's pages started (via Chromium's DevTools),
    in the profile ``profile`` only when given: an earlier test's profile may still be
    ending, and its runtime with it."""
    session = browser.new_browser_cdp_session()
    targets = session.send("Target.getTargets")["targetInfos"]
    session.detach()
    return [
        t["targetId"]
        for t in targets
        if t["type"] == "shared_worker"
        and t["url"].startswith(f"{site}/posviz-worker.js")
        and profile in (None, t.get("browserContextId"))
    ]


def kill_runtime(page, site: str):
    """End the runtime of ``page``'s profile from outside, as a crash or the browser would."""
    browser = page.context.browser
    session = browser.new_browser_cdp_session()
    (target,) = shared_workers(browser, site, context_id(page))
    assert session.send("Target.closeTarget", {"targetId": target})["success"]
    session.detach()


def test_two_pages_opened_at_once_start_one_runtime(static_site, context, blocked):
    first, second = new_page(context), new_page(context)
    first.goto(f"{static_site}/{TOPIC}", wait_until="commit")
    second.goto(f"{static_site}/figure-710.html", wait_until="commit")
    wait_live(first)
    wait_live(second)
    one, two = runtime(first), runtime(second)
    assert one["shared"] and two["shared"]
    assert one["id"] == two["id"], (one, two)
    assert sorted([one["connection"], two["connection"]]) == [1, 2]
    assert len(shared_workers(context.browser, static_site)) == 1
    answers(second, HANDS)
    answers(first, HANDS, figure_index=1)
    assert blocked == []
    assert first.errors == [] and second.errors == []


# A document.hidden the test sets (headless pages are never hidden of themselves), and
# the time each message this page sends its runtime left (connect.js posts them).
HIDDEN_JS = """
Object.defineProperty(Document.prototype, "hidden", {
  configurable: true, get: () => !!window.fakeHidden,
});
window.sent = [];
for (const kind of [MessagePort, Worker]) {
  const post = kind.prototype.postMessage;
  kind.prototype.postMessage = function (message, ...rest) {
    if (message && message.type) sent.push([message.type, performance.now()]);
    return post.call(this, message, ...rest);
  };
}
"""
STARTED_JS = """(wait) => {
  const start = sent.find(([type]) => type === "start");
  return start && performance.now() - start[1] > wait;
}"""


def test_a_page_on_screen_that_has_not_painted_holds_the_runtime_back_until_hidden(
    tampered, context
):
    """The runtime's bytes wait for every page on screen to paint (export/worker.js): no
    timer lets them go. A page that cannot paint (its BokehJS refused) holds them back
    while it is on screen; hidden, it holds no one back, and the painted page goes live."""
    asked = []
    site = tampered(
        {"pyodide/pyodide.js": lambda original: asked.append(time.monotonic()) or original}
    )
    unpainted = new_page(context)
    unpainted.add_init_script(HIDDEN_JS)
    unpainted.route("**/static/**/bokeh*.js", lambda route: route.abort())
    unpainted.goto(f"{site}/figure-710.html")
    unpainted.wait_for_function("() => sent.some(([t]) => t === 'hello')")
    painted = new_page(context)
    painted.add_init_script(HIDDEN_JS)
    painted.goto(f"{site}/figure-96.html")
    # Five seconds after the painted page said "start" (the old rule let the runtime go
    # after three), the runtime has asked for nothing.
    painted.wait_for_function(STARTED_JS, arg=5000, timeout=LIVE)
    assert asked == [], "the runtime fetched while a page on screen had not painted"
    hidden_at = time.monotonic()
    unpainted.evaluate(
        "() => { window.fakeHidden = true; document.dispatchEvent(new Event('visibilitychange')); }"
    )
    wait_live(painted)
    assert painted.evaluate("document.body.dataset.posviz") == "live"
    assert asked and asked[0] > hidden_at, (asked, hidden_at)
    answers(painted, BARS)


def test_a_second_tab_joins_the_python_already_running(static_site, context):
    first = new_page(context)
    first.goto(f"{static_site}/{TOPIC}")
    wait_live(first)
    assert runtime(first)["joined"] == "waiting"  # it started Python
    second = new_page(context)
    second.goto(f"{static_site}/{TOPIC}")
    wait_live(second)
    assert runtime(second)["id"] == runtime(first)["id"]
    assert runtime(second)["joined"] == "ready"  # Python was running: no new start
    assert runtime(second)["connection"] == 2
    answers(second, BARS)


def test_a_page_without_figures_starts_python_unannounced_for_the_next(static_site, context):
    context.add_init_script(STATUS_HISTORY_JS)
    home = new_page(context)
    home.goto(f"{static_site}/index.html")
    wait_live(home)
    assert runtime(home)["joined"] == "waiting"  # it started Python
    assert home.evaluate("window.posvizStatusHistory") == []  # and never said so
    assert home.locator(".posviz-status").count() == 0
    figure = new_page(context)
    figure.goto(f"{static_site}/figure-710.html")
    wait_live(figure)
    assert runtime(figure)["id"] == runtime(home)["id"]
    assert runtime(figure)["joined"] == "ready"  # the figure page found it running
    answers(figure, HANDS)


def test_following_a_link_keeps_python_running(static_site, page, blocked):
    page.goto(f"{static_site}/{TOPIC}")
    wait_live(page)
    started = runtime(page)
    link = page.locator("ol.reading a").first
    target = link.get_attribute("href")
    link.click()
    page.wait_for_url(f"**/{target}")
    wait_live(page)
    after = runtime(page)
    assert after["id"] == started["id"], "following a link restarted Python"
    assert after["joined"] == "ready"
    assert after["connection"] == 2
    # And on to a figure, which answers at once from the same Python.
    page.goto(f"{static_site}/figure-710.html")
    wait_live(page)
    assert runtime(page)["id"] == started["id"]
    assert runtime(page)["connection"] == 3
    answers(page, HANDS)
    assert blocked == []


def test_without_shared_worker_each_page_starts_its_own(static_site, context, blocked):
    context.add_init_script("delete window.SharedWorker;")
    first = new_page(context)
    first.goto(f"{static_site}/figure-710.html")
    wait_live(first)
    assert runtime(first)["shared"] is False
    assert shared_workers(context.browser, static_site) == []
    answers(first, HANDS)
    second = new_page(context)
    second.goto(f"{static_site}/figure-96.html")
    wait_live(second)
    assert runtime(second)["shared"] is False
    assert runtime(second)["id"] != runtime(first)["id"]
    assert runtime(second)["joined"] == "waiting"
    answers(second, BARS)
    assert blocked == []


# Firefox and Safari take a SharedWorker but ignore ``extendedLifetime``: the
# runtime then lives only while a page holds it.
WITHOUT_EXTENDED_LIFETIME = """
(() => {
  const Original = window.SharedWorker;
  window.SharedWorker = function (url, options) {
    const given = typeof options === "string" ? {name: options} : {...options};
    window.posvizAskedExtendedLifetime = "extendedLifetime" in given;
    delete given.extendedLifetime;
    return new Original(url, given);
  };
  window.SharedWorker.prototype = Original.prototype;
})();
"""


def test_without_extended_lifetime_open_pages_share_and_navigation_restarts(
    static_site, context, blocked
):
    context.add_init_script(WITHOUT_EXTENDED_LIFETIME)
    first, second = new_page(context), new_page(context)
    first.goto(f"{static_site}/{TOPIC}", wait_until="commit")
    second.goto(f"{static_site}/figure-710.html", wait_until="commit")
    wait_live(first)
    wait_live(second)
    assert first.evaluate("window.posvizAskedExtendedLifetime")  # the wrapper really ran
    shared = runtime(first)["id"]
    assert runtime(second)["id"] == shared and runtime(second)["shared"]
    second.close()
    # The last page leaves: nothing keeps the runtime, so the next page starts
    # a new one, goes live and answers, with no "did not finish" notice.
    first.goto(f"{static_site}/figure-96.html")
    wait_live(first)
    after = runtime(first)
    assert after["shared"] and after["id"] != shared, "the runtime outlived its last page"
    assert after["joined"] == "waiting"
    answers(first, BARS)
    assert blocked == []
    assert first.errors == []


def test_a_runtime_that_dies_while_starting_is_replaced(static_site, context):
    context.add_init_script(STATUS_HISTORY_JS)
    page = new_page(context)
    page.goto(f"{static_site}/figure-96.html")
    page.wait_for_function(
        "() => window.posvizRuntime && window.posvizRuntime.state === 'starting'", timeout=LIVE
    )
    first = runtime(page)["id"]
    console = []
    page.on("console", lambda message: console.append(message.text))
    kill_runtime(page, static_site)
    # Wait on what the page does next, whatever it is: the note, a failure, or live.
    page.wait_for_function(
        "() => window.posvizStatusHistory.some((text) => text.includes('starts again'))"
        " || ['live', 'error'].includes(document.body.dataset.posviz)",
        timeout=LIVE,
    )
    history = page.evaluate("window.posvizStatusHistory")
    seen = (history, runtime(page), console)
    assert any("Python stopped while starting, so it starts again" in t for t in history), seen
    wait_live(page)
    history = page.evaluate("window.posvizStatusHistory")
    assert not any("could not start" in text for text in history), history
    assert runtime(page)["id"] != first
    answers(page, BARS)


def test_the_next_page_says_the_last_start_did_not_finish(static_site, context):
    first = new_page(context)
    first.goto(f"{static_site}/figure-96.html")
    first.wait_for_function(
        "() => window.posvizRuntime && window.posvizRuntime.state === 'starting'", timeout=LIVE
    )
    first.close()  # the last page closes during a slow start, and the runtime goes
    for target in shared_workers(context.browser, static_site):
        session = context.browser.new_browser_cdp_session()
        session.send("Target.closeTarget", {"targetId": target})
        session.detach()
    second = new_page(context)
    second.goto(f"{static_site}/figure-710.html")
    second.locator(".posviz-status").filter(
        has_text="the last start of Python did not finish, so a new one starts"
    ).wait_for(timeout=30_000)
    wait_live(second)
    assert runtime(second)["joined"] == "waiting"
    answers(second, HANDS)


def test_two_pages_of_one_route_keep_their_own_state(joined, joined_too):
    """Both pages join a running Python (conftest's ``reader``)."""
    (linked, site, _), plain = joined, joined_too
    linked.goto(f"{site}/figure-710.html?pos=30")
    plain.goto(f"{site}/figure-710.html")
    wait_live(linked)
    wait_live(plain)
    assert runtime(linked)["id"] == runtime(plain)["id"]
    linked.locator(".bk-slider-title", has_text="pos: 30").wait_for(timeout=15_000)
    default = slider_title(plain, 0, 0)
    assert default != "pos: 30"  # the deep link stayed on its page
    untouched = wait_for_plot(linked, HANDS)
    answers(plain, HANDS)
    assert slider_title(plain, 0, 0) != default
    assert slider_title(linked, 0, 0) == "pos: 30"  # the other page's slider moved, not this
    assert fingerprint(linked, HANDS) == untouched
    # An error in one page's document is that page's alone.
    linked.evaluate(
        "posvizWorker.postMessage({type: 'patch', patch: {events: [{kind: 'ModelChanged',"
        " model: {id: 'no-such-model'}, attr: 'value', new: 1}]}})"
    )
    linked.wait_for_function("() => document.body.dataset.posviz === 'error'", timeout=15_000)
    assert plain.evaluate("document.body.dataset.posviz") == "live"
    assert plain.locator(".posviz-status").count() == 0
    answers(plain, HANDS)


def test_the_harness_blocks_a_shared_workers_requests(static_site, page):
    """The wall behind the tests: a SharedWorker cannot reach outside either."""
    page.goto(f"{static_site}/index.html")
    outcome = page.evaluate(
        """() => new Promise((resolve) => {
          const code = "onconnect = (e) => fetch('http://example.com/').then("
            + "() => e.ports[0].postMessage('reached'), () => e.ports[0].postMessage('failed'))";
          const url = URL.createObjectURL(new Blob([code], {type: 'text/javascript'}));
          const worker = new SharedWorker(url);
          worker.port.onmessage = (event) => resolve(event.data);
        })"""
    )
    assert outcome == "failed"


@pytest.fixture
def tampered(serve_copy):
    """The export on a new origin each call, with ``overrides`` as ``static_server`` takes them."""
    return serve_copy


def flip(data: bytes | None) -> bytes:
    """The same file with a few bytes changed in the middle."""
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 64]) + data[middle + 64 :]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("wheels/posviz-*.whl", r"wheels/posviz-\S+\.whl is corrupt: its sha256 is"),
        # The worker checks numpy's wheel itself before loadPackage sees it.
        ("pyodide/numpy-*.whl", r"pyodide/numpy-\S+\.whl is corrupt: its sha256 is"),
    ],
)
def test_a_corrupt_package_fails_loudly_at_once(tampered, page, pattern, expected):
    url = tampered({pattern: flip})
    page.goto(f"{url}/figure-96.html")
    page.wait_for_function("() => document.body.dataset.posviz === 'error'", timeout=LIVE)
    message = page.locator(".posviz-status").inner_text()
    assert "The live figures could not start" in message
    assert re.search(expected, message), message  # the file is named, whatever its version
    assert "ModuleNotFoundError" not in message
    # It stopped while installing: Python never got as far as building the page.
    assert runtime(page)["state"] == "failed"
    assert wait_for_plot(page, BARS) is not None  # the preview stays


def test_an_error_after_going_live_is_shown_and_the_page_still_answers(joined):
    """The page joins a running Python (conftest's ``reader``): an error is the page's own."""
    page, site, _ = joined
    page.goto(f"{site}/figure-96.html")
    wait_live(page)
    assert page.locator(".posviz-status").count() == 0
    page.evaluate("posvizWorker.postMessage({type: 'no-such-message'})")
    status = page.locator(".posviz-status")
    status.wait_for(timeout=15_000)
    expect(status).to_contain_text("The live figures stopped working")
    expect(status).to_contain_text("unknown message type")
    assert page.evaluate("document.body.dataset.posviz") == "error"
    # A patch that fails in Python is answered too, so the page never waits for good.
    page.evaluate(
        "posvizWorker.postMessage({type: 'patch', patch: {events: [{kind: 'ModelChanged',"
        " model: {id: 'no-such-model'}, attr: 'value', new: 1}]}})"
    )
    page.wait_for_function("() => !posvizWorker.busy", timeout=15_000)
    answers(page, BARS)


def test_a_malformed_fragment_is_ignored(joined):
    page, site, _ = joined
    console = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.goto(f"{site}/page-attention-is-all-you-need.html#%E0%A4%A")
    wait_live(page)
    page.wait_for_function("() => Bokeh.documents.length >= 2")
    assert page.errors == []
    assert not [line for line in console if "URI" in line], console
    assert page.evaluate("window.scrollY") == 0
