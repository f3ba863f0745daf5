"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

Every request that leaves loopback is aborted and recorded, so a test can
assert that a page needed nothing from the network. Only fixtures live here:
the harness is tests/support/browser.py (shared with the benchmarks) and the
helpers tests/support/pages.py; their names stay importable from here.
"""

from typing import NamedTuple

import pytest
from playwright.sync_api import expect

from tests.support.browser import (  # noqa: F401  (kept importable from here)
    CHROMIUM,
    CHROMIUM_ARGS,
    CHROMIUM_SHELL,
    EXPECT,
    LOOPBACK,
    free_port,
    launch,
    posviz_server,
    sealed_context,
    static_server,
    wait_for_http,
)
from tests.support.pages import (  # noqa: F401  (kept importable from here)
    FINGERPRINT_JS,
    LIVE,
    Blocked,
    fingerprint,
    new_page,
    press_on_slider,
    slider_title,
    wait_for_change,
    wait_for_plot,
)

expect.set_options(timeout=EXPECT)  # an idle machine's 5 s is too short for a loaded run


@pytest.fixture(scope="session")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as started:
        yield started


def launched(playwright, executable: str):
    try:
        opened = launch(playwright, executable)
    except RuntimeError as error:
        pytest.fail(str(error))
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def shell_browser(playwright):
    """Chromium's headless shell: the engine readers run, for less CPU (support/browser.py)."""
    yield from launched(playwright, CHROMIUM_SHELL)


@pytest.fixture(scope="session")
def readers_browser(playwright):
    """The Chromium readers run, in its headless mode."""
    yield from launched(playwright, CHROMIUM)


@pytest.fixture(scope="module")
def browser(request):
    """The module's Chromium: the headless shell, or the readers' build for a module
    that sets ``READERS_CHROMIUM = True`` (what lives in Chrome's browser layer)."""
    readers = getattr(request.module, "READERS_CHROMIUM", False)
    return request.getfixturevalue("readers_browser" if readers else "shell_browser")


@pytest.fixture
def blocked():
    return Blocked()


@pytest.fixture
def context(browser, blocked):
    """A fresh sealed profile: its pages share one SharedWorker runtime."""
    opened = sealed_context(browser, blocked)
    yield opened
    opened.close()


@pytest.fixture
def page(context):
    return new_page(context)


@pytest.fixture(scope="module")
def static_site(built_site):
    """The built export on a loopback port, for the whole module."""
    with static_server(built_site) as url:
        yield url


class Reader(NamedTuple):
    """A reader's profile with Python running: the export's URL, the context, and what
    its pages tried to fetch outside."""

    url: str
    context: object
    blocked: Blocked


class Joined(NamedTuple):
    """A new tab of the ``reader``, the export's URL it reads, and what was blocked."""

    page: object
    url: str
    blocked: Blocked


@pytest.fixture(scope="session")
def reader(shell_browser, built_site):
    """One reader's profile, with Python already running, on an export served on an
    origin of its own: ``Reader(url, context, blocked)``.

    Its first page (the home page) starts Python and stays open for the test process's
    whole run, so a page a test opens in the context joins that runtime, as a reader's
    next tab does (test_runtime.py checks the join): it goes live without a cold start of
    its own, and every module of the process shares the one start. For what a page does
    once live; how a page starts Python is tested cold, on each module's ``static_site``.
    Its origin is its own, so a test that stops the runtimes of ``static_site`` leaves
    this one running. A page that leaves the reader's tab open would keep its document
    in that runtime: ``joined`` closes its tab.
    """
    with static_server(built_site) as url:
        blocked = Blocked()
        context = sealed_context(shell_browser, blocked)
        first = new_page(context)
        first.goto(f"{url}/index.html")
        first.wait_for_function("() => document.body.dataset.posviz !== 'loading'", timeout=LIVE)
        state = first.evaluate("document.body.dataset.posviz")
        assert state == "live", (
            f"the reader's first page is {state}: " + first.locator(".posviz-status").inner_text()
        )
        yield Reader(url, context, blocked)
        context.close()


@pytest.fixture
def joined(reader):
    """``Joined(page, url, blocked)``: a new tab of the ``reader``, whose Python is
    running; the tab goes live by joining that runtime, and is closed after the test."""
    tab = new_page(reader.context)
    yield Joined(tab, reader.url, reader.blocked)
    tab.close()


@pytest.fixture
def joined_too(reader):
    """A second tab of the ``reader``, beside ``joined``'s, closed after the test."""
    tab = new_page(reader.context)
    yield tab
    tab.close()


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


@pytest.fixture(scope="session")
def served():
    """`posviz serve` on a free loopback port, one per test process (pytest-xdist worker).

    Shared by every module: starting it costs seconds, and the tests only read the
    repository's content through it. A module that needs a server of its own (a
    log, other flags) defines its own ``served``, as test_serve_inputs does.
    """
    port = free_port()
    with posviz_server(port):
        yield f"http://127.0.0.1:{port}"
