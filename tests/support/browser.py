"""The one browser harness: headless Chromium sealed off from the network, and a
loopback file server. Shared by the browser tests (tests/ui/conftest.py) and the
benchmarks (benchmarks/common.py).

Two walls keep pages offline. Playwright's routing aborts and records every
request of a page or dedicated worker that leaves loopback; it does not see a
SharedWorker's requests, so Chromium also gets a proxy that does not exist for
every host but loopback: anything else fails at once.

Two builds of Debian's Chromium 156, one engine (the same Blink and V8):
- ``CHROMIUM``, the browser readers run (``chromium``, in its headless mode). The
  benchmarks measure in it, and so do the tests of what lives in Chrome's browser
  layer rather than in the engine: storage partitioning and third-party storage
  rules (test_embed_cross_site), and the reader's offline copy (test_offline).
- ``CHROMIUM_SHELL``, Chromium's headless shell (``chromium-headless-shell``), for
  every other browser test: it draws and runs the same pages with about 40 % of the
  CPU (tests/ui/test_layout.py: 77 CPU-s of Chromium → 31). A module asks for the
  reader's build by setting ``READERS_CHROMIUM = True``.
"""

import functools
import http.server
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_SHELL = "/usr/bin/chromium-headless-shell"
# s: `posviz serve` until its home page answers. About 10 s on an idle 2-core machine; a
# ceiling for a loaded one, where the suite's other process and three browsers compete.
SERVER_START = 180
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Nothing listens on port 9 of loopback; Chromium never proxies loopback itself.
    "--proxy-server=http://127.0.0.1:9",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    overrides: dict = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = unquote(urlparse(self.path).path).lstrip("/")
        for pattern, replace in self.overrides.items():
            if Path(path).match(pattern):
                original = Path(self.directory) / path
                body = replace(original.read_bytes() if original.is_file() else None)
                if isinstance(body, threading.Event):  # held back until the test lets go
                    body.wait()
                    break
                if body is None:
                    self.send_error(404, "withheld by the test")
                    return
                self.send_response(200)
                self.send_header("Content-Type", self.guess_type(path))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        super().do_GET()

    def handle(self):
        try:
            super().handle()
        except ConnectionError:  # the browser hung up (a page closed mid-download)
            pass


@contextmanager
def static_server(folder: Path, overrides: dict | None = None):
    """``folder`` over HTTP on 127.0.0.1 (a free port) while the block runs.

    ``overrides`` maps a glob on the URL path (``wheels/posviz-*.whl``) to a
    function of the file's bytes (None if absent) that returns what to serve
    instead, or None for a 404: tampered or missing files without touching disk;
    or a ``threading.Event``: the file is held back until the event is set.
    """
    handler = type("Handler", (_Quiet,), {"overrides": dict(overrides or {})})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class Held:
    """``static_server`` of ``site`` whose files matching ``pattern`` wait until ``release``.

    Use it as ``with Held(site, "pyodide/*") as url:`` (or enter it later);
    ``extra`` adds overrides of its own. Leaving it releases the files.
    ``requested`` lists, in the order the server got them, the patterns (held
    or extra) that requests matched.
    """

    def __init__(self, site, pattern: str, extra=None):
        self.event = threading.Event()
        self.requested: list[str] = []
        overrides = {pattern: lambda _: self.event, **(extra or {})}
        self.server = static_server(
            site, {key: self._noting(key, answer) for key, answer in overrides.items()}
        )

    def _noting(self, key: str, answer):
        def override(data):
            self.requested.append(key)
            return answer(data)

        return override

    def __enter__(self):
        return self.server.__enter__()

    def release(self):
        self.event.set()

    def __exit__(self, *exc):
        self.event.set()
        return self.server.__exit__(*exc)


def launch(playwright, executable: str = CHROMIUM):
    """Debian's Chromium (or ``CHROMIUM_SHELL``), headless, behind the dead proxy."""
    if not Path(executable).exists():
        package = Path(executable).name
        raise RuntimeError(f"{executable} is missing: install Debian's {package} (./dev test does)")
    return playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)


@contextmanager
def chromium():
    """A headless Chromium for the duration of the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


# Pages load Panel's Python only when they need it (loader.js): the tests and
# benchmarks of the live tier ask for it at once. ``panel="on demand"`` does not.
EAGER_PANEL = 'window.posvizPanel = "eager";'


# Playwright's own patience, 30 s for a navigation or a wait and 5 s for ``expect``, is
# an idle machine's. Under a loaded run a served topic page took longer than 30 s to
# load (stop 42's run 2: the other process was starting WebKit and Firefox at the time).
# Every wait is for a state, so more patience costs a passing run nothing; a wait that
# runs out still names what it waited for.
NAVIGATION = 120_000  # ms: a page's load
WAIT = 60_000  # ms: any other wait (a selector, a function, a load state)
EXPECT = 30_000  # ms: an ``expect`` assertion (set in tests/ui/conftest.py)


def patient(context):
    """``context`` with the suite's patience for its navigations and waits."""
    context.set_default_navigation_timeout(NAVIGATION)
    context.set_default_timeout(WAIT)
    return context


def seal(context, blocked: list, panel: str = "eager"):
    """Abort every request of ``context`` that leaves the machine; record it in ``blocked``.

    ``panel``: "eager" (Panel's tier loads with the page) or "on demand" (as for a reader).
    """
    if panel == "eager":
        context.add_init_script(EAGER_PANEL)

    def guard(route):
        url = route.request.url
        local = url.startswith(("data:", "blob:", "file:"))
        if local or (urlparse(url).hostname or "") in LOOPBACK:
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", guard)
    return patient(context)


def sealed_context(browser, blocked: list, init_scripts=(), panel: str = "eager", **options):
    """A fresh profile (empty cache, own SharedWorkers); outside requests go to ``blocked``.

    ``panel`` as ``seal`` takes it; ``options`` go to Playwright's ``new_context``
    (``java_script_enabled=False``, a viewport).
    """
    viewport = {"viewport": {"width": 1280, "height": 900}}
    context = seal(browser.new_context(**{**viewport, **options}), blocked, panel)
    for script in init_scripts:
        context.add_init_script(script)
    return context


def wait_for_http(url: str, timeout: float, process: subprocess.Popen | None = None):
    """Wait until ``url`` answers, at most ``timeout`` s; fail at once if ``process`` ends.

    First until the port takes connections, then one request at a time, each given the
    time left: a page that takes longer to render than a short per-request timeout
    (a loaded machine, a cold server) would otherwise be asked for again and again,
    every abandoned request still rendered, and never answered.
    """
    deadline = time.monotonic() + timeout
    address = urlparse(url)
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before answering {url}")
        try:
            with socket.create_connection((address.hostname, address.port or 80), timeout=1):
                pass
            with urllib.request.urlopen(url, timeout=max(1.0, deadline - time.monotonic())):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


@contextmanager
def posviz_server(port: int, *extra: str, log: Path | None = None):
    """`posviz serve` on 127.0.0.1:``port`` until the block ends; yields the process.

    ``log``: a file for what the server prints (else it is dropped).
    """
    output = log.open("w") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "posviz.cli",
            "serve",
            "--port",
            str(port),
            "--address",
            "127.0.0.1",
            *extra,
        ],
        stdout=output,
        stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", SERVER_START, process)
        yield process
    finally:
        stop(process)
        if log is not None:
            output.close()


def stop(process: subprocess.Popen, seconds: float = 10) -> None:
    """Ask ``process`` to end; kill it if it has not within ``seconds``."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
