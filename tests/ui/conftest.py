"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

Every request that leaves loopback is aborted and recorded, so a test can
assert that a page needed nothing from the network (tests/ui/browser.py holds
the harness, shared with the benchmarks).
"""

import pytest

from tests.ui.browser import (  # noqa: F401  (re-exported for other test modules)
    CHROMIUM,
    CHROMIUM_ARGS,
    LOOPBACK,
    free_port,
    launch,
    posviz_server,
    sealed_context,
    static_server,
    wait_for_http,
)

# Fingerprint of the data a named Bokeh plot draws: per renderer, per column,
# length and sum. It changes whenever the plotted data does.
FINGERPRINT_JS = """(name) => {
  if (!window.Bokeh || !Bokeh.documents) return null;
  // Newest document first: a static page keeps its pre-rendered one around.
  for (const doc of [...Bokeh.documents].reverse()) {
    const plot = doc.get_model_by_name(name);
    if (!plot) continue;
    return plot.renderers.filter(r => r.data_source).map(r => {
      const data = r.data_source.data;
      return Object.keys(data).sort().map(key => {
        const column = data[key];
        const flat = (column.length && column[0] && column[0].length !== undefined
                      && typeof column[0] !== 'string')
          ? column.flatMap(a => Array.from(a)) : Array.from(column);
        let sum = 0;
        for (const x of flat) if (typeof x === 'number') sum += x;
        return key + ':' + flat.length + ':' + sum.toFixed(6);
      }).join('|');
    }).join(' ; ');
  }
  return null;
}"""


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            launched = launch(playwright)
        except RuntimeError as error:
            pytest.fail(str(error))
        yield launched
        launched.close()


class Blocked(list):
    """URLs that tried to leave the machine."""


@pytest.fixture
def blocked():
    return Blocked()


@pytest.fixture
def context(browser, blocked):
    """A fresh sealed profile: its pages share one SharedWorker runtime."""
    opened = sealed_context(browser, blocked)
    yield opened
    opened.close()


def new_page(context):
    """A page of ``context`` that records its uncaught errors in ``page.errors``."""
    opened = context.new_page()
    opened.errors = []
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    return opened


@pytest.fixture
def page(context):
    return new_page(context)


@pytest.fixture(scope="module")
def static_site(built_site):
    """The built export on a loopback port, for the whole module."""
    with static_server(built_site) as url:
        yield url


@pytest.fixture
def serve_copy(built_site):
    """The export on a new loopback port (a new origin) each call, files withheld or changed.

    Call it with ``overrides`` as ``static_server`` takes them; it yields the URL.
    """
    servers = []

    def serve(overrides=None):
        server = static_server(built_site, overrides)
        servers.append(server)
        return server.__enter__()

    yield serve
    for server in servers:
        server.__exit__(None, None, None)


def fingerprint(page, name: str):
    return page.evaluate(FINGERPRINT_JS, name)


def wait_for_plot(page, name: str, timeout: float = 30_000):
    page.wait_for_function(f"() => ({FINGERPRINT_JS})({name!r}) !== null", timeout=timeout)
    return fingerprint(page, name)


def press_on_slider(page, figure_index: int, slider_index: int, key: str = "ArrowRight"):
    handle = (
        page.locator(".posviz-figure").nth(figure_index).locator(".noUi-handle").nth(slider_index)
    )
    handle.focus()
    handle.press(key)


def slider_title(page, figure_index: int, slider_index: int) -> str:
    return (
        page.locator(".posviz-figure")
        .nth(figure_index)
        .locator(".bk-slider-title")
        .nth(slider_index)
        .inner_text()
    )


def wait_for_change(page, name: str, before: str, timeout: float = 15_000) -> str:
    page.wait_for_function(
        f"(before) => ({FINGERPRINT_JS})({name!r}) !== before", arg=before, timeout=timeout
    )
    return fingerprint(page, name)


@pytest.fixture(scope="module")
def served():
    """`posviz serve` on a free loopback port, for the whole module."""
    port = free_port()
    with posviz_server(port):
        yield f"http://127.0.0.1:{port}"
