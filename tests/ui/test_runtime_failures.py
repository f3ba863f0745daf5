"""The export when something goes wrong: every failure is named, soon, on the page.

A missing or altered file of the runtime names that file in the status pill;
a page opened as a file says how to serve the folder; a page whose connection
Python closes is told so; one page cannot feed the shared runtime a message
too big to handle, nor pile up documents by saying hello again. Headless
Chromium, network blocked, the built export on loopback (files withheld or
changed in transit, never on disk).
"""

import pytest

from tests.support.pages import (
    fingerprint,
    new_page,
    press_on_slider,
    slider_title,
    wait_for_change,
    wait_for_plot,
)

pytestmark = pytest.mark.browser
LIVE = 120_000
# A failure must show long before the 90 s stall watchdog would say "Loading stopped".
SOON = 30_000
BARS = "posviz-96-bars"
HANDS = "posviz-710-hands"
NUMPY_WHEEL = "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
POSVIZ_WHEEL = "wheels/posviz-0.1.0-py3-none-any.whl"


@pytest.fixture
def tampered(serve_copy):
    """The export on a new origin each call, with ``overrides`` as ``static_server`` takes them."""
    return serve_copy


def withheld(data):
    return None  # a 404


def flip(data: bytes) -> bytes:
    """The same file with a few bytes changed in the middle."""
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 64]) + data[middle + 64 :]


def failure(page, timeout: float = SOON) -> str:
    page.wait_for_function(
        "() => document.body && document.body.dataset.posviz === 'error'", timeout=timeout
    )
    return page.locator(".posviz-status").inner_text()


def wait_live(page):
    page.wait_for_function(
        "() => document.body && ['live', 'error'].includes(document.body.dataset.posviz)",
        timeout=LIVE,
    )
    assert page.evaluate("document.body.dataset.posviz") == "live", page.locator(
        ".posviz-status"
    ).all_inner_texts()


def answers(page, plot: str):
    before = wait_for_plot(page, plot)
    press_on_slider(page, 0, 0)
    return wait_for_change(page, plot, before)


@pytest.mark.parametrize(
    ("path", "change", "expected"),
    [
        ("pyodide/pyodide.asm.wasm", withheld, "is missing from the site (HTTP 404)"),
        ("pyodide/python_stdlib.zip", withheld, "is missing from the site (HTTP 404)"),
        ("pyodide/pyodide-lock.json", withheld, "is missing from the site (HTTP 404)"),
        ("pyodide/pyodide.asm.js", withheld, "is missing from the site (HTTP 404)"),
        ("pyodide/pyodide.asm.wasm", flip, "is corrupt: its sha256 is"),
        ("pyodide/pyodide-lock.json", flip, "is corrupt: its sha256 is"),
        # The numpy tier's wheels, fetched beside the core files and checked alike.
        (NUMPY_WHEEL, flip, "is corrupt: its sha256 is"),
        (POSVIZ_WHEEL, flip, "is corrupt: its sha256 is"),
    ],
    ids=[
        "wasm-404",
        "stdlib-404",
        "lock-404",
        "asm-js-404",
        "wasm-corrupt",
        "lock-corrupt",
        "numpy-corrupt",
        "posviz-corrupt",
    ],
)
def test_a_missing_or_altered_pyodide_file_is_named_at_once(
    tampered, page, blocked, path, change, expected
):
    url = tampered({path: change})
    page.goto(f"{url}/figure-96.html")
    message = failure(page)
    assert "The live figures could not start" in message
    assert f"{path} {expected}" in message, message
    assert "\n" not in message.strip()
    assert wait_for_plot(page, BARS) is not None  # the preview stays
    assert blocked == []


@pytest.mark.parametrize(
    "path", ["static/bokeh/bokeh-3.9.2.min.js", "static/panel/1.9.4/dist/panel.min.js"]
)
def test_an_altered_script_of_the_page_is_refused_and_named(tampered, page, path):
    url = tampered({path: flip})
    page.goto(f"{url}/figure-96.html")
    message = failure(page)
    assert f"{path} could not be loaded, or is not the file this build wrote" in message, message


# The texts and controls the status note's box overlaps, and whether it floats.
NOTE_COVERS_JS = """() => {
  const note = document.querySelector('.posviz-status').getBoundingClientRect();
  const found = getComputedStyle(document.querySelector('.posviz-status')).position === 'static'
    ? [] : ['the note floats'];
  for (const el of document.querySelectorAll('h1, h2, h3, p, li, figcaption, a, button')) {
    if (el.closest('.posviz-status')) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    const apart = box.bottom <= note.top || box.top >= note.bottom
      || box.right <= note.left || box.left >= note.right;
    if (!apart) found.push(`${el.tagName}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return found;
}"""


def test_a_page_opened_as_a_file_answers_from_its_frames_and_says_how_to_serve(built_site, page):
    page.goto((built_site / "figure-710.html").as_uri())
    page.wait_for_function("() => document.body.dataset.posviz === 'file'", timeout=60_000)
    message = page.locator(".posviz-status").inner_text()
    assert "Opened as a file" in message and "\n" not in message.strip(), message
    assert f"python3 -m http.server -d '{built_site}'" in message, message
    assert "http://localhost:8000/figure-710.html" in message
    # It stays, so it takes its own place above the page's text and covers none of it.
    covered = page.evaluate(NOTE_COVERS_JS)
    assert covered == [], covered
    # The frames come as scripts beside the page (browsers refuse fetch for files).
    page.wait_for_function("() => document.body.dataset.posvizFrames === 'ready'", timeout=60_000)
    before = fingerprint(page, "posviz-710-hands")
    press_on_slider(page, 0, 0)
    page.wait_for_function(
        "() => posvizFrames.state[710] === 'frame' && posvizFrames.figures[710].values.pos === 13"
    )
    assert fingerprint(page, "posviz-710-hands") != before
    assert slider_title(page, 0, 0) == "pos: 13"
    # Two sliders moved: no frame holds it, and the page says what it needs.
    press_on_slider(page, 0, 1)
    page.wait_for_function("() => posvizFrames.state[710] === 'computing'")
    said = page.evaluate("posvizFrames.figures[710].models.text.readout.text")
    assert "serve this page" in said, said
    assert page.errors == []


STEAL_JS = """async () => {
  const {held} = await navigator.locks.query();
  const pages = held.map((lock) => lock.name).filter((name) => name.startsWith("posviz page "));
  for (const name of pages) await navigator.locks.request(name, {steal: true}, () => null);
  return pages.length;
}"""


def test_a_page_whose_lock_is_stolen_is_told_it_lost_python(static_site, context):
    page = new_page(context)
    page.goto(f"{static_site}/figure-96.html")
    wait_live(page)
    thief = new_page(context)
    thief.goto(f"{static_site}/site.json")  # same origin, no posviz page of its own
    assert thief.evaluate(STEAL_JS) == 1
    message = failure(page)
    assert "The live figures stopped working" in message
    assert "another page took over its lock" in message, message


def test_a_message_over_the_cap_is_refused_and_other_pages_still_answer(joined, joined_too):
    """Both pages join a running Python (conftest's ``reader``), which refuses the one."""
    (greedy, site, _), other = joined, joined_too
    greedy.goto(f"{site}/figure-96.html")
    other.goto(f"{site}/figure-710.html")
    wait_live(greedy)
    wait_live(other)
    greedy.evaluate(
        "posvizWorker.postMessage({type: 'patch', patch: {events: [], filler: 'x'.repeat(5e6)}})"
    )
    message = failure(greedy)
    assert 'refused a "patch" message of more than 1000000 bytes' in message, message
    answers(other, HANDS)
    assert other.evaluate("document.body.dataset.posviz") == "live"


def test_hello_again_on_one_connection_orphans_no_document(static_site, context):
    page = new_page(context)
    page.goto(f"{static_site}/figure-96.html")
    wait_live(page)
    assert page.evaluate("window.posvizRuntime.documents") == 1
    for _ in range(15):
        page.evaluate("posvizWorker.postMessage({type: 'hello', route: 'figure-96'})")
    assert "said hello twice" in failure(page)
    answers(page, BARS)  # Python still serves the page its one document
    # A page that joins later sees every document Python holds: its own and the first's.
    later = new_page(context)
    later.goto(f"{static_site}/figure-710.html")
    wait_live(later)
    runtime = later.evaluate("window.posvizRuntime")
    assert runtime["id"] == page.evaluate("window.posvizRuntime.id")
    assert runtime["documents"] == 2, runtime
    answers(later, HANDS)
