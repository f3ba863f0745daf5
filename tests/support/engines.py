"""Three browser engines behind one small driver: Chromium, Firefox and WebKit.

Each engine is Debian's own build, driven by a maintained driver (nothing
downloads a browser):

- chromium: /usr/bin/chromium through Playwright;
- firefox: /usr/bin/firefox-esr through npm puppeteer-core over WebDriver BiDi
  (tests/support/firefox_bridge.mjs, spoken to in JSON lines);
- webkit: WebKitGTK's MiniBrowser through /usr/bin/WebKitWebDriver and PyPI
  selenium, on a private Xvfb display.

A page offers the same few verbs everywhere: ``goto``, ``evaluate`` (a
JavaScript function's source and one JSON argument), ``wait_for`` (the same,
until it returns something truthy), ``press`` (a key to the focused element),
``drag``, ``front`` (the tab in front: a tab behind runs its timers once a
second), ``screenshot`` and ``close``. Everything a test asks of the page
itself goes through ``evaluate``, which behaves alike in the three.

The network wall is the same in every engine: each browser's proxy is a
loopback server (:class:`RefusingProxy`) that records every request it is
handed and refuses it, and loopback itself is never proxied. It sees a
SharedWorker's requests too, so ``engine.blocked`` lists every URL that tried
to leave the machine. Chromium keeps Playwright's routing guard as well.
"""

import json
import os
import shutil
import socketserver
import subprocess
import tempfile
import threading
import time
import warnings
from pathlib import Path
from urllib.parse import urlparse, urlsplit

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, LOOPBACK, patient

ENGINES = ("chromium", "firefox", "webkit")
FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
XVFB = "/usr/bin/Xvfb"
ROOT = Path(__file__).resolve().parents[2]
BRIDGE = Path(__file__).with_name("firefox_bridge.mjs")
PROBE = Path(__file__).with_name("probe.js").read_text("utf-8")
# Hosts the browsers themselves call (updates, sign-in, remote settings), never
# the site: the proxy refuses them like anything else, and tests leave them out.
BROWSER_SERVICES = (
    "update.googleapis.com",
    "accounts.google.com",
    "clients2.google.com",
    "firefox.settings.services.mozilla.com",
    "content-signature-2.cdn.mozilla.net",
)
ATTEMPTS = 3  # WebKit session starts tried before the engine is given up
STARTUP = 20.0  # s: a WebKit session that has not opened by then will not (one opens in 0.3-0.5 s)
SLICE = 10.0  # seconds one in-page wait may run before the driver asks again
# WebKitGTK's UI process polls memory and, from 90 % used, tells its other processes:
# the network process then stops at once the service workers of origins with no page
# open (SWServer::handleLowMemoryWarning; else after 10 s), and pages drop caches. It
# counts a cgroup's usage against its limit, and that usage includes the page cache,
# so in a container whose limit sits near its cache the suite's own file traffic reads
# as pressure, where this machine reads none. The tests turn the monitor off, so that
# CI and a developer's machine run WebKit alike; ``webkit_memory_reading`` says what
# it would have read, for the warnings.
WEBKIT_ENV = {"WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR": "1"}
PRESSURE = 90  # % at which WebKit's monitor reports pressure (MemoryPressureMonitor.cpp)

# Polls a predicate inside the page until it gives something truthy or time runs out.
WAIT_JS = """(async () => {
  const predicate = (%s);
  const end = Date.now() + %d;
  for (;;) {
    let value = null;
    try { value = await predicate(%s); } catch (error) { value = null; }
    if (value) return value;
    if (Date.now() > end) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})()"""

# Firefox: no request leaves through its own services (puppeteer-core sets most
# of these already); the proxy is the wall.
FIREFOX_PREFS = {
    "app.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.http.speculative-parallel-limit": 0,
    "network.prefetch-next": False,
    "toolkit.telemetry.enabled": False,
    "extensions.update.enabled": False,
    "browser.region.network.url": "",
    "media.gmp-manager.url": "",
    "services.settings.server": "http://127.0.0.1:9/v1",  # remote settings: nowhere
}


class MissingEngine(RuntimeError):
    """An engine's browser or driver is not installed (./dev setup-system installs them)."""


class RefusingProxy:
    """An HTTP proxy on loopback that records every request it is handed and refuses it."""

    def __init__(self):
        self.requests: list[str] = []
        seen = self.requests

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                line = self.rfile.readline(65536).decode("latin-1").strip()
                if line:
                    method, _, rest = line.partition(" ")
                    target = rest.rsplit(" ", 1)[0]
                    seen.append(f"https://{target}" if method == "CONNECT" else target)
                try:
                    self.wfile.write(
                        b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                except OSError:
                    pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Page:
    """One tab of an engine; see the module docstring for its verbs."""

    def __init__(self, engine):
        self.engine = engine

    def evaluate(self, js: str, arg=None):
        """``js`` is a function's source; it is called with ``arg`` in the page."""
        return self._evaluate(f"({js})({json.dumps(arg)})")

    def wait_for(self, js: str, arg=None, timeout: float = 60.0, what: str | None = None):
        """Call ``js(arg)`` in the page until it returns something truthy; return that."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                value = self._evaluate(
                    WAIT_JS % (js, int(max(0.1, min(left, SLICE)) * 1000), json.dumps(arg))
                )
            except Exception as error:  # the page navigated mid-wait: ask the new one
                if time.monotonic() > deadline:
                    raise
                self.engine.pause_after(error)
                continue
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"{self.engine.name}: {what or js} not true within {timeout:.0f} s"
                )

    def probe(self, name: str, *args):
        """Call ``name`` of tests/support/probe.js in the page."""
        return self.evaluate(f"(args) => ({PROBE})[{name!r}](...args)", list(args))

    def wait_probe(self, name: str, *args, timeout: float = 60.0):
        """Wait until ``name`` of tests/support/probe.js gives something truthy; return it."""
        return self.wait_for(
            f"(args) => ({PROBE})[{name!r}](...args)",
            list(args),
            timeout,
            what=f"probe {name}{tuple(args)!r}",
        )

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 5):
        """Press the pointer at ``start``, move it to ``end`` in ``steps``, release it."""
        (x0, y0), (x1, y1) = start, end
        moves = [
            ("move", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
            for i in range(1, steps + 1)
        ]
        self._mouse([("move", x0, y0), ("down", x0, y0), *moves, ("up", x1, y1)])


class Engine:
    """One browser, started once; pages come and go."""

    name = ""

    def __init__(self):
        self.proxy = RefusingProxy()
        self.pages: list[Page] = []
        self.closed = False

    @property
    def blocked(self) -> list[str]:
        """Every request the proxy refused since the last reset, the browser's own included."""
        return self.proxy.requests

    def site_blocked(self) -> list[str]:
        """The refused requests that did not come from the browser's own services."""
        return [
            url for url in self.blocked if (urlparse(url).hostname or "") not in BROWSER_SERVICES
        ]

    def pause_after(self, error):
        time.sleep(0.1)  # a navigation is under way; the next page will answer

    def reset(self):
        """Close every page a test opened."""
        for page in list(self.pages):
            page.close()
        self.proxy.requests.clear()

    def close(self):
        self.reset()
        self.proxy.close()

    def quit(self):
        """Close the engine once; a later call does nothing."""
        if not self.closed:
            self.closed = True
            self.close()


# --- Chromium: Playwright -----------------------------------------------------------


class ChromiumPage(Page):
    def __init__(self, engine, page):
        super().__init__(engine)
        self.page = page

    def goto(self, url: str):
        self.page.goto(url, timeout=120_000)

    def _evaluate(self, expression: str):
        return self.page.evaluate(expression)

    def front(self):
        self.page.bring_to_front()

    def press(self, key: str):
        self.page.bring_to_front()
        self.page.keyboard.press(key)

    def _mouse(self, steps):
        self.page.bring_to_front()
        for action, x, y in steps:
            if action == "move":
                self.page.mouse.move(x, y)
            elif action == "down":
                self.page.mouse.down()
            else:
                self.page.mouse.up()

    def screenshot(self, path: Path):
        self.page.screenshot(path=str(path))

    def close(self):
        self.engine.pages.remove(self)
        self.page.close()


class Chromium(Engine):
    name = "chromium"

    def __init__(self):
        if not Path(CHROMIUM).exists():
            raise MissingEngine(f"{CHROMIUM} is missing: ./dev setup-system installs chromium")
        from playwright.sync_api import sync_playwright

        super().__init__()
        self._playwright = sync_playwright().start()
        args = [a for a in CHROMIUM_ARGS if not a.startswith("--proxy-server")]
        self.browser = self._playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[*args, f"--proxy-server=http://127.0.0.1:{self.proxy.port}"],
        )
        self.version = self.browser.version
        self._context = None

    def _guard(self, route):
        url = route.request.url
        if url.startswith(("data:", "blob:")) or (urlparse(url).hostname or "") in LOOPBACK:
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def page(self, width=1280, height=900, dark=False) -> Page:
        if self._context is None:  # one profile per test: its pages share one runtime
            self._context = patient(
                self.browser.new_context(viewport={"width": width, "height": height})
            )
            self._context.route("**/*", self._guard)
        raw = self._context.new_page()
        raw.set_viewport_size({"width": width, "height": height})
        raw.emulate_media(color_scheme="dark" if dark else "light")
        page = ChromiumPage(self, raw)
        self.pages.append(page)
        return page

    def reset(self):
        super().reset()
        if self._context is not None:
            self._context.close()
            self._context = None

    def close(self):
        super().close()
        self.browser.close()
        self._playwright.stop()


# --- Firefox: puppeteer-core over WebDriver BiDi -------------------------------------


class FirefoxPage(Page):
    def __init__(self, engine, bridge, handle):
        super().__init__(engine)
        self.bridge = bridge
        self.handle = handle

    def goto(self, url: str):
        self.bridge.call("goto", page=self.handle, url=url)

    def _evaluate(self, expression: str):
        return self.bridge.call("evaluate", page=self.handle, expression=expression)

    def front(self):
        self.bridge.call("bringToFront", page=self.handle)

    def press(self, key: str):
        self.bridge.call("bringToFront", page=self.handle)
        self.bridge.call("press", page=self.handle, key=key)

    def _mouse(self, steps):
        self.bridge.call("bringToFront", page=self.handle)
        self.bridge.call("mouse", page=self.handle, steps=steps)

    def screenshot(self, path: Path):
        self.bridge.call("screenshot", page=self.handle, path=str(path))

    def close(self):
        self.engine.pages.remove(self)
        self.bridge.call("closePage", page=self.handle)


class FirefoxBridge:
    """One Firefox, driven by tests/support/firefox_bridge.mjs over stdin and stdout."""

    def __init__(self, node: str, prefs: dict):
        self.process = subprocess.Popen(
            [node, str(BRIDGE), json.dumps(prefs)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._lock = threading.Lock()
        self._id = 0

    def call(self, op: str, **args):
        with self._lock:
            self._id += 1
            self.process.stdin.write(json.dumps({"id": self._id, "op": op, **args}) + "\n")
            line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"firefox: the driver exited ({self.process.poll()}) during {op}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"firefox: {op}: {answer['error']}")
        return answer["value"]

    def close(self):
        try:
            self.call("quit")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Firefox(Engine):
    name = "firefox"

    def __init__(self):
        self.node = shutil.which("node")
        if not Path(FIREFOX).exists() or self.node is None:
            raise MissingEngine(
                f"{FIREFOX} or node is missing: ./dev setup-system installs firefox-esr"
            )
        if not (ROOT / "node_modules" / "puppeteer-core").is_dir():
            raise MissingEngine("npm puppeteer-core is missing: ./dev test installs it (npm ci)")
        super().__init__()
        self.bridges = {}  # light and dark: over BiDi the scheme is a pref, set at start
        self.version = self._bridge(dark=False).call("version")

    def _bridge(self, dark: bool) -> FirefoxBridge:
        if dark not in self.bridges:
            prefs = {
                **FIREFOX_PREFS,
                "network.proxy.type": 1,  # manual: every request but loopback to the proxy
                "network.proxy.http": "127.0.0.1",
                "network.proxy.http_port": self.proxy.port,
                "network.proxy.ssl": "127.0.0.1",
                "network.proxy.ssl_port": self.proxy.port,
                "network.proxy.share_proxy_settings": True,
                "network.proxy.no_proxies_on": "localhost, 127.0.0.1",
                "network.proxy.allow_hijacking_localhost": False,
                "layout.css.prefers-color-scheme.content-override": 0 if dark else 1,
            }
            self.bridges[dark] = FirefoxBridge(self.node, prefs)
        return self.bridges[dark]

    def page(self, width=1280, height=900, dark=False) -> Page:
        bridge = self._bridge(dark)
        page = FirefoxPage(self, bridge, bridge.call("newPage", width=width, height=height))
        self.pages.append(page)
        return page

    def close(self):
        super().close()
        for bridge in self.bridges.values():
            bridge.close()


# --- WebKit: WebKitGTK's MiniBrowser through WebKitWebDriver and selenium ----------


class WebKitPage(Page):
    def __init__(self, engine, driver, handle):
        super().__init__(engine)
        self.driver = driver
        self.handle = handle
        self.framed = None  # (width, height) when the window cannot be that narrow

    def _here(self, framed=True):
        # Always switch: asking which window is current costs the same round trip.
        self.driver.switch_to.window(self.handle)
        if self.framed and framed:
            self.driver.switch_to.frame(0)
        return self.driver

    def front(self):
        self._here()  # each page is a window of its own: none is behind another

    def goto(self, url: str):
        driver = self._here(framed=False)
        if not self.framed:
            driver.get(url)
            return
        # MiniBrowser's window has a least width (447 px here): a narrower viewport
        # is an iframe of that size at the window's top left, and the page is its.
        # The frame's parent is a page of the same origin (the server's 404 page),
        # so the framed page is first-party: its storage and SharedWorker are the site's.
        width, height = self.framed
        parts = urlsplit(url)
        driver.get(f"{parts.scheme}://{parts.netloc}/posviz-engines-frame")
        driver.execute_script(
            "const [width, height, url] = arguments;"
            "document.body.replaceChildren(); document.body.style.margin = '0';"
            "const frame = document.createElement('iframe');"
            "frame.style.cssText = `border:0;width:${width}px;height:${height}px`;"
            "frame.src = url; document.body.appendChild(frame);",
            width,
            height,
            url,
        )
        driver.switch_to.frame(0)

    def _evaluate(self, expression: str):
        answer = self._here().execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => {expression})"
            ".then((value) => done({value: value === undefined ? null : value}),"
            " (error) => done({error: String((error && error.stack) || error)}));"
        )
        if answer is None:
            raise RuntimeError("webkit: the page went away during evaluate")
        if "error" in answer:
            raise RuntimeError(f"webkit: {answer['error']}")
        return answer["value"]

    def press(self, key: str):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        named = {"ArrowRight": Keys.ARROW_RIGHT, "ArrowLeft": Keys.ARROW_LEFT, "Tab": Keys.TAB}
        ActionChains(self._here()).send_keys(named.get(key, key)).perform()

    def _mouse(self, steps):
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        actions = ActionBuilder(self._here(), duration=20)
        for action, x, y in steps:
            if action == "move":
                actions.pointer_action.move_to_location(int(x), int(y))
            elif action == "down":
                actions.pointer_action.pointer_down()
            else:
                actions.pointer_action.pointer_up()
        actions.perform()

    def set_size(self, width: int, height: int):
        """Size the window so that the page's viewport is ``width`` × ``height``."""
        driver = self._here()
        driver.set_window_size(width, height)
        inner = driver.execute_script("return [innerWidth, innerHeight]")
        driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
        inner = driver.execute_script("return [innerWidth, innerHeight]")
        if inner[0] != width:
            self.framed = (width, height)
            driver.set_window_size(max(800, width + 100), height + 100)

    def screenshot(self, path: Path):
        self._here().save_screenshot(str(path))

    def close(self):
        self.engine.pages.remove(self)
        self._here(framed=False).close()
        self.driver.switch_to.window(self.engine.home[self.driver])


class WebKit(Engine):
    name = "webkit"

    def __init__(self):
        for path in (WEBKIT_DRIVER, MINIBROWSER, XVFB):
            if not Path(path).exists():
                raise MissingEngine(
                    f"{path} is missing: ./dev setup-system installs webkit2gtk-driver and xvfb"
                )
        super().__init__()
        read, write = os.pipe()
        self._xvfb = subprocess.Popen(
            [XVFB, "-displayfd", str(write), "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as display:
            self.display = f":{display.readline().strip()}"
        self.drivers = {}  # light and dark: MiniBrowser takes its scheme at start
        self.home = {}
        self.version = None
        reading, source = webkit_memory_reading()
        if reading >= PRESSURE:  # said in the run's summary: what the monitor would do here
            warnings.warn(
                f"webkit: its memory monitor would read {reading} % used here ({source}) and "
                f"report pressure; the tests turn it off ({', '.join(WEBKIT_ENV)})",
                stacklevel=2,
            )
        try:
            self._driver(dark=False)
        except BaseException:
            self._xvfb.terminate()  # else the display outlives the run, and the next WebKit hangs
            self._xvfb.wait(10)
            self.proxy.close()
            raise

    def _driver(self, dark: bool):
        if dark in self.drivers:
            return self.drivers[dark]
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.service import Service

        options = webdriver.WebKitGTKOptions()
        options.binary_location = MINIBROWSER
        options.add_argument("--automation")
        if dark:
            options.add_argument("--dark-mode")
        # The wall reaches WebKit through the environment, not WebDriver's proxy capability:
        # given a noProxy list, MiniBrowser 2.50 crashed at start in about one start in six
        # under load (a segfault in strlen, from g_strdupv in webkit_network_proxy_settings_new,
        # as it took the session request), and the driver then waited forever for it. With no
        # capability, its network process asks GLib's default resolver, libproxy, which reads
        # these variables.
        env = {**os.environ, **WEBKIT_ENV, **webkit_wall(self.proxy.port), "DISPLAY": self.display}

        def open_session(service, made, failed):
            try:
                made.append(webdriver.WebKitGTK(options=options, service=service))
            except Exception as error:  # noqa: BLE001 (refused, or cut by service.stop())
                failed.append(error)

        driver = None
        failed = []
        hung = []  # what each attempt that never answered printed (the driver and MiniBrowser)
        # A session that never answers was, each time it was looked into, a MiniBrowser that
        # died at start (the proxy capability, above). Should another cause come, a later
        # start is tried, and the run's summary says so.
        for attempt in range(ATTEMPTS):
            handle, log = tempfile.mkstemp(prefix="posviz-webkitdriver-", suffix=".log")
            os.close(handle)
            service = Service(WEBKIT_DRIVER, env=env, log_output=log)
            made = []
            opening = threading.Thread(
                target=open_session, args=(service, made, failed), daemon=True
            )
            opening.start()
            opening.join(STARTUP)
            if made:
                driver = made[0]
                if attempt:  # said in the run's summary, as a thread's traceback was before
                    warnings.warn(
                        f"webkit: a session answered at attempt {attempt + 1}; "
                        f"what the ones that hung printed: {hung}",
                        stacklevel=2,
                    )
                Path(log).unlink(missing_ok=True)
                break
            if getattr(service, "process", None):  # a driver still starting has none yet
                service.stop()  # the hung session request fails, and the thread ends
            opening.join(10)
            hung.append(Path(log).read_text("utf-8", "replace")[-600:])
            Path(log).unlink(missing_ok=True)
        if driver is None:
            last = f"; the last attempt: {failed[-1]!r}" if failed else ""
            raise RuntimeError(
                f"webkit: {WEBKIT_DRIVER} no session in {STARTUP:.0f} s, {ATTEMPTS} times{last};"
                f" what they printed: {hung}"
            )
        driver.set_script_timeout(SLICE + 30)
        driver.set_page_load_timeout(120)
        self.version = driver.capabilities.get("browserVersion")
        self.home[driver] = driver.current_window_handle
        self.drivers[dark] = driver
        return driver

    def page(self, width=1280, height=900, dark=False) -> Page:
        driver = self._driver(dark)
        driver.switch_to.new_window("window")
        page = WebKitPage(self, driver, driver.current_window_handle)
        page.set_size(width, height)
        self.pages.append(page)
        return page

    def close(self):
        super().close()
        for driver in self.drivers.values():
            driver.quit()
        self._xvfb.terminate()
        self._xvfb.wait(10)


def webkit_wall(port: int) -> dict[str, str]:
    """The environment that sends every WebKit request but loopback's to the proxy on ``port``
    (libproxy reads either spelling; both are set, so nothing of the caller's own reaches it)."""
    proxy = f"http://127.0.0.1:{port}"
    wall = {"http_proxy": proxy, "https_proxy": proxy, "all_proxy": proxy}
    wall["no_proxy"] = "127.0.0.1,localhost"
    return {**wall, **{name.upper(): value for name, value in wall.items()}}


def start(name: str) -> Engine:
    """Start the engine called ``name`` (one of ENGINES)."""
    return {"chromium": Chromium, "firefox": Firefox, "webkit": WebKit}[name]()


def _number(path: Path) -> int | None:
    """A cgroup file's leading integer, or None (absent, unreadable, or "max")."""
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def webkit_memory_reading(root: Path = Path("/")) -> tuple[int, str]:
    """The percentage of memory WebKitGTK's monitor would call used, and from where,
    by its rule (UIProcess/linux/MemoryPressureMonitor.cpp): the system's share,
    (MemTotal - MemAvailable) / MemTotal, or the cgroup's usage over its limit if that
    is higher. The cgroup is the path of the first line of /proc/self/cgroup named
    "memory", "name=systemd" or nothing; its limit is the first of v2's memory.memsw.max,
    the lower of memory.max and memory.high, then v1's memory.memsw.limit_in_bytes and
    memory.limit_in_bytes; its usage v2's memory.current, else v1's usage_in_bytes.
    The source names the machine's MemAvailable in either case."""
    meminfo = {}
    for line in (root / "proc/meminfo").read_text().splitlines():
        key, _, rest = line.partition(":")
        meminfo[key] = int(rest.split()[0])
    total, free = meminfo["MemTotal"], meminfo["MemAvailable"]
    system = f"MemAvailable {free / 2**20:.1f} of {total / 2**20:.1f} GiB"
    used, source = (total - free) * 100 // total, system
    path = None
    for line in (root / "proc/self/cgroup").read_text().splitlines():
        _, name, where = line.split(":", 2)
        if name in ("memory", "name=systemd", ""):
            path = where.lstrip("/")
            break
    if path is None:
        return used, source
    v2, v1 = root / "sys/fs/cgroup" / path, root / "sys/fs/cgroup/memory" / path
    most, high = _number(v2 / "memory.max"), _number(v2 / "memory.high")
    limits = [_number(v2 / "memory.memsw.max")]
    if None not in (most, high):
        limits.append(min(most, high))
    else:
        limits.append(high if high is not None else most)
    limits += [_number(v1 / "memory.memsw.limit_in_bytes"), _number(v1 / "memory.limit_in_bytes")]
    limit = next((value for value in limits if value is not None), None)
    usage = _number(v2 / "memory.current")
    usage = usage if usage is not None else _number(v1 / "memory.usage_in_bytes")
    if limit and usage is not None and int(100 * usage / limit) > used:
        cgroup = f"cgroup {usage / 2**30:.1f} of {limit / 2**30:.1f} GiB; {system}"
        return int(100 * usage / limit), cgroup
    return used, source
