"""Offline after one visit: the service worker keeps what a reader opened, and the whole site
on "Save for offline reading"; a rebuilt site replaces the copy whole.

Headless Chromium, outside requests blocked. The proof of offline is the
server itself stopped (and the context set offline): every byte after that comes
from the service worker's cache, the Python runtime's included, which starts
afresh (a new generation of the shared worker) rather than reuse one already up.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.browser import sealed_context, static_server
from tests.support.pages import (
    new_page,
    open_live,
    press_on_slider,
    wait_for_change,
    wait_for_plot,
)

pytestmark = pytest.mark.browser
# The reader's offline copy (service worker, Cache Storage, persistence) is checked
# in the Chromium readers run, not only in its engine (support/browser.py).
READERS_CHROMIUM = True
LIVE = 120_000
KEPT = 60_000  # the service worker copies ~30 MB from loopback (or the HTTP cache)
TOPIC = "topic-positional-encoding.html"
FIGURE = "figure-710.html"
UNVISITED = "page-attention-meets-pixels.html"
RUNTIME = re.compile(r"^(posviz-worker\.js|pyodide/|wheels/)")

# The listed paths the page's service worker keeps in this build's cache, and the caches.
CACHED_JS = """async () => {
  const names = await caches.keys();
  const reg = await navigator.serviceWorker.getRegistration();
  const scope = reg ? reg.scope : new URL("./", location.href).href;
  const out = {};
  for (const name of names) {
    const cache = await caches.open(name);
    out[name] = (await cache.keys()).map((r) => decodeURIComponent(r.url.slice(scope.length)));
  }
  return out;
}"""
# data-posviz-offline as it changes: "saving" may last a moment only.
HISTORY_JS = """(() => {
  window.__offline = [];
  new MutationObserver(() => {
    const now = document.documentElement.dataset.posvizOffline;
    if (window.__offline[window.__offline.length - 1] !== now) window.__offline.push(now);
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ["data-posviz-offline"]});
})();"""
CONTROLLED_JS = "() => navigator.serviceWorker.controller !== null"
PAGE_BUILD_JS = "JSON.parse(document.getElementById('posviz-page').text).build"


def listing(site: Path) -> dict:
    """posviz-sw.js's listing of the site: path → {sha256, bytes}."""
    text = (site / "posviz-sw.js").read_text("utf-8")
    return json.loads(re.search(r"const OFFLINE = (\{.*?\});\n", text).group(1))


def cached(page) -> dict[str, list[str]]:
    return page.evaluate(CACHED_JS)


def offline_mark(page, value: str, timeout: float = KEPT) -> None:
    """Wait until <html data-posviz-offline> says ``value``; fail naming what it said."""
    try:
        page.wait_for_function(
            "(value) => document.documentElement.dataset.posvizOffline === value",
            arg=value,
            timeout=timeout,
        )
    except Exception as error:
        said = page.evaluate("document.documentElement.dataset.posvizOffline")
        raise AssertionError(
            f"data-posviz-offline: {value!r} not within {timeout} ms; it says {said!r}"
        ) from error


def entries(page) -> list[str]:
    """What every cache holds, one list."""
    return [path for paths in cached(page).values() for path in paths]


# A predicate of ``wait_for_function`` must answer at once (a promise counts as true):
# it starts an asynchronous check of the caches and answers with the last one's result.
POLL_JS = """([check, arg]) => {
  const key = check + JSON.stringify(arg);
  const polls = (window.__polls = window.__polls || {});
  const poll = (polls[key] = polls[key] || {busy: false, ok: false});
  if (!poll.busy) {
    poll.busy = true;
    (0, eval)(`(${check})`)(arg).then((ok) => { poll.ok = ok; }, () => {})
      .finally(() => { poll.busy = false; });
  }
  return poll.ok;
}"""


def wait_async(page, check: str, arg, what: str, timeout: float = KEPT) -> None:
    """Wait until the asynchronous ``check`` (a JS function of ``arg``) resolves true."""
    try:
        page.wait_for_function(POLL_JS, arg=[check, arg], timeout=timeout, polling=500)
    except Exception as error:
        caches = cached(page)
        raise AssertionError(f"{what}: not so after {timeout} ms; caches: {caches}") from error


HOLDS_JS = f"""async (wanted) => {{
  const have = new Set(Object.values(await ({CACHED_JS})()).flat());
  return wanted.every((path) => have.has(path));
}}"""


def wait_kept(page, paths, what: str, timeout: float = KEPT) -> None:
    """Wait until the service worker's cache holds every one of ``paths``."""
    wanted = sorted(paths)
    try:
        wait_async(page, HOLDS_JS, wanted, what, timeout)
    except AssertionError as error:
        have = set(entries(page))
        missing = [p for p in wanted if p not in have]
        raise AssertionError(f"{what}: not kept after {timeout} ms: {missing[:8]}") from error


def runtime_paths(files: dict) -> list[str]:
    return [path for path in files if RUNTIME.match(path)]


def fresh_runtime(page) -> None:
    """The next load starts a new shared runtime: the next generation of its name (connect.js)."""
    page.evaluate(
        "localStorage.setItem('posviz-worker-generation',"
        " String(Number(localStorage.getItem('posviz-worker-generation') || 0) + 7))"
    )


def answers(page, plot: str, figure: int = 0) -> None:
    before = wait_for_plot(page, plot, timeout=LIVE)
    press_on_slider(page, figure, 0)
    assert wait_for_change(page, plot, before) != before


@pytest.fixture
def context(browser, blocked):
    opened = sealed_context(browser, blocked, init_scripts=[HISTORY_JS])
    yield opened
    opened.close()


def test_the_topic_and_a_figure_read_and_answer_with_the_server_gone(built_site, context, blocked):
    files = listing(built_site)["files"]
    server = static_server(built_site)
    url = server.__enter__()
    try:
        # 1. One online visit: the topic, then a figure page.
        topic = new_page(context)
        open_live(topic, f"{url}/{TOPIC}")
        topic.wait_for_function(CONTROLLED_JS, timeout=KEPT)
        wait_kept(topic, [TOPIC, *runtime_paths(files)], "the topic and the runtime it used")
        figure = new_page(context)
        open_live(figure, f"{url}/{FIGURE}")
        assert figure.evaluate(CONTROLLED_JS), "a page opened after the first is not controlled"
        wait_kept(figure, [FIGURE, "frames/710.json.gz", "frames/710.bin.gz"], "the figure page")
        # The control: its size before it starts, keyboard reachable, then its progress.
        button = topic.get_by_role("button", name=re.compile(r"^Save for offline reading \("))
        expect(button).to_have_text(re.compile(r"\(\d+\.\d MB\)$"))
        button.focus()
        topic.keyboard.press("Enter")
        offline_mark(topic, "saved")
        assert "saving" in topic.evaluate("window.__offline")
        expect(topic.get_by_role("button", name="Remove offline copy")).to_be_visible()
        wait_kept(topic, list(files), "the whole site, after Save for offline reading")
    finally:
        # 2. The network gone: the context offline and the server stopped.
        context.set_offline(True)
        server.__exit__(None, None, None)
    # 3. Both reloaded, each starting Python afresh from the cache, and a page not visited.
    for page, plot in ((topic, "posviz-96-bars"), (figure, "posviz-710-hands")):
        before = page.evaluate("window.posvizRuntime.id")
        fresh_runtime(page)
        open_live(page, page.url)
        assert page.evaluate("window.posvizRuntime.id") != before
        # 4. A slider moved in each: the plot changes.
        answers(page, plot)
    unvisited = new_page(context)
    open_live(unvisited, f"{url}/{UNVISITED}")
    answers(unvisited, "posviz-7256-cost")
    # The state survived the reloads.
    assert topic.evaluate("document.documentElement.dataset.posvizOffline") == "saved"
    assert blocked == []
    assert topic.errors == figure.errors == unvisited.errors == []


def flip(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 16]) + data[middle + 16 :]


def test_a_file_whose_sha256_differs_is_never_kept_and_is_named(built_site, context):
    tampered = "posviz-icon.svg"
    with static_server(built_site, {tampered: flip}) as url:
        page = new_page(context)
        page.goto(f"{url}/index.html")
        page.wait_for_function(CONTROLLED_JS, timeout=KEPT)
        page.get_by_role("button", name=re.compile("^Save for offline reading")).click()
        offline_mark(page, "failed")
        status = page.locator(".posviz-offline-status").inner_text()
        assert tampered in status and "sha256" in status, status
        # The page fetches the icon itself (the manifest's): still not kept.
        page.evaluate(f"fetch({tampered!r}).then((r) => r.text())")
        kept = set(entries(page))
        assert tampered not in kept
        assert "index.html" in kept  # the cache is there, and works


# Every text the control's status line shows while saving ("3.1 MB of 30.9 MB"), in order.
PROGRESS_JS = """(() => {
  window.__progress = [];
  new MutationObserver(() => {
    const status = document.querySelector(".posviz-offline-status");
    const text = status && status.textContent;
    const seen = window.__progress;
    if (text && / of /.test(text) && seen[seen.length - 1] !== text) seen.push(text);
  }).observe(document, {childList: true, characterData: true, subtree: true});
})();"""


def megabytes(text: str) -> tuple[float, float]:
    """ "512 KB of 30.9 MB" → (0.512, 30.9), as offline.js's size() writes them."""
    unit = {"KB": 1e-3, "MB": 1.0}
    found = re.fullmatch(r"([\d.]+) (KB|MB) of ([\d.]+) (KB|MB)", text)
    assert found, f"the progress reads {text!r}"
    done, done_unit, total, total_unit = found.groups()
    return float(done) * unit[done_unit], float(total) * unit[total_unit]


# Ask the service worker to keep this page and the whole runtime; its answer (matched by id).
KEEP_ALL_JS = """async (id) => {
  const container = navigator.serviceWorker;
  const answered = new Promise((resolve) => {
    container.addEventListener("message", (event) => {
      if (event.data?.reply === id) resolve(event.data);
    });
  });
  container.controller.postMessage({type: "keep", id, paths: [location.href], runtime: true});
  return await answered;
}"""


def test_save_shows_its_progress_and_remove_offline_copy_deletes_it(built_site, browser, blocked):
    """Save for offline reading counts up to the size its button named; Remove offline
    copy deletes the cache, puts the button back, and keeps nothing more until the
    reader saves again: not what a page still loading asks for (its Python may come up
    after the click), nor a page opened afterwards. Offline, such a page is a message."""
    context = sealed_context(browser, blocked, init_scripts=[HISTORY_JS, PROGRESS_JS])
    server = static_server(built_site)
    url = server.__enter__()
    try:
        page = new_page(context)
        page.goto(f"{url}/index.html")
        page.wait_for_function(CONTROLLED_JS, timeout=KEPT)
        save = page.get_by_role("button", name=re.compile(r"^Save for offline reading \("))
        expect(save).to_be_visible()
        named = float(re.search(r"\((\d+\.\d) MB\)$", save.inner_text()).group(1))
        save.click()
        offline_mark(page, "saved")
        steps = [megabytes(text) for text in page.evaluate("window.__progress")]
        assert steps, "no progress was shown while saving"
        assert all(total == named for _, total in steps), (named, steps)
        assert [done for done, _ in steps] == sorted(done for done, _ in steps), steps
        wait_kept(page, list(listing(built_site)["files"]), "the whole site")
        status = page.locator(".posviz-offline-status")
        expect(status).to_contain_text(f"({named} MB)")
        page.get_by_role("button", name="Remove offline copy").click()
        offline_mark(page, "removed")
        assert entries(page) == [], "the copy is still there"
        expect(
            page.get_by_role("button", name=f"Save for offline reading ({named} MB)")
        ).to_be_visible()
        expect(status).to_have_text(
            "Offline copy removed: pages you open are not kept until you save again."
        )
        # A page opened afterwards, and a keep asked afterwards, keep nothing.
        page.goto(f"{url}/{FIGURE}")
        offline_mark(page, "removed")
        answer = page.evaluate(KEEP_ALL_JS, "after-removal")
        assert (answer["kept"], answer["keptFiles"], answer["declined"]) == (0, 0, True), answer
        assert entries(page) == [], "kept after the reader removed the copy"
    finally:
        context.set_offline(True)
        server.__exit__(None, None, None)
    for name in (UNVISITED, FIGURE):
        page.goto(f"{url}/{name}")
        expect(page.locator("body")).to_contain_text(f"You are offline, and {name} was not saved")
    assert blocked == [] and page.errors == []
    context.close()


# --- a rebuilt site --------------------------------------------------------------

# The page the figure comes from: its text is in the posviz wheel (so in the build's id).
OLD_TITLE, NEW_TITLE = "The Transformer, Block by Block", "The Transformer, Block after Block"


def build(content: Path, out: Path) -> None:
    """`posviz build --figures 710` of ``content`` into ``out`` (a small site: one page)."""
    done = subprocess.run(
        [sys.executable, "-m", "posviz.cli", "build", "--out", str(out), "--figures", "710"],
        env={**__import__("os").environ, "POSVIZ_CONTENT": str(content)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_rebuilt_site_replaces_the_offline_copy_whole(tmp_path, context):
    content = tmp_path / "content"
    shutil.copytree(Path(__file__).parents[2] / "content", content)
    out = tmp_path / "site"
    build(content, out)
    old = listing(out)["build"]
    with static_server(out) as url:
        page = new_page(context)
        open_live(page, f"{url}/{FIGURE}")
        page.wait_for_function(CONTROLLED_JS, timeout=KEPT)
        wait_kept(page, [FIGURE, *runtime_paths(listing(out)["files"])], "the first build")
        old_page_build = page.evaluate(PAGE_BUILD_JS)
        # One content file changed, the site built again into the same folder.
        source = content / "pages" / "attention-is-all-you-need.md"
        text = source.read_text("utf-8")
        assert OLD_TITLE in text
        source.write_text(text.replace(OLD_TITLE, NEW_TITLE), "utf-8")
        build(content, out)
        new = listing(out)["build"]
        assert new != old
        # The next load finds the new worker; it takes over and drops the old cache.
        page.reload()
        only_new = "async (build) => { const names = await caches.keys();"
        only_new += " return names.length === 1 && names[0].endsWith(' ' + build); }"
        wait_async(page, only_new, new, "only the new build's cache")
        names = list(cached(page))
        assert len(names) == 1 and names[0].endswith(f" {new}"), names
        kept = cached(page)[names[0]]
        assert FIGURE in kept and "wheels/posviz-0.1.0-py3-none-any.whl" in kept, kept
        # What it holds is the new build's, byte for byte (checked on the way in).
        open_live(page, page.url)
        # The page is the new build's: its id is the one the new files on disk carry.
        on_disk = re.search(r'"build": "([0-9a-f]{16})"', (out / FIGURE).read_text("utf-8"))
        assert page.evaluate(PAGE_BUILD_JS) == on_disk.group(1) != old_page_build
        assert page.evaluate("window.posvizOffline.build") == new


def test_a_readers_visit_without_panel_keeps_what_it_used_and_answers_offline(
    built_site, browser, blocked
):
    """As a reader gets the page (Panel only on demand): the visit keeps the numpy
    tier's files the runtime fetched, and none of Panel's, and offline the page still
    answers a state no frame holds (two sliders moved) from Python started from the copy."""
    files = listing(built_site)["files"]
    context = sealed_context(browser, blocked, panel="on demand")
    server = static_server(built_site)
    url = server.__enter__()
    try:
        page = new_page(context)
        page.goto(f"{url}/{FIGURE}")
        page.wait_for_function("() => document.body.dataset.posviz === 'numpy'", timeout=LIVE)
        page.wait_for_function(CONTROLLED_JS, timeout=KEPT)
        used = page.evaluate("window.posvizRuntime.fetched")
        assert "pyodide/pyodide.asm.wasm" in used and not [p for p in used if "panel-" in p]
        wait_kept(page, [FIGURE, *used], "the page and the numpy tier's files it used")
        kept = set(entries(page))
        assert not [p for p in kept if p.startswith("wheels/panel-")], "Panel kept unasked"
        assert set(used) <= set(files)
    finally:
        context.set_offline(True)
        server.__exit__(None, None, None)
    fresh_runtime(page)
    page.reload()
    page.wait_for_function("() => document.body.dataset.posviz === 'numpy'", timeout=LIVE)
    press_on_slider(page, 0, 0)
    press_on_slider(page, 0, 1)  # two sliders moved: no frame holds it
    page.wait_for_function("() => posvizFrames.state[710] === 'python'", timeout=LIVE)
    assert blocked == [] and page.errors == []
    context.close()
