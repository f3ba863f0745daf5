"""posviz.widget's ES module in headless Chromium, with a small stand-in for anywidget's model.

The page loads ``widget.js`` as anywidget does (a blob: module) and renders it
with a model that carries the state the Python widget produced. The model's
``save_changes`` answers as the kernel did: with the state Python computed for
the value the page set (precomputed here for pos 24 to 30 and 40). Network
blocked: BokehJS comes in the state, as the kernel sends it.
"""

import base64
import json

import pytest
from playwright.sync_api import expect

from tests.support.browser import static_server

pytest.importorskip("anywidget")

pytestmark = pytest.mark.browser

PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>posviz widget</title></head>
<body><main id="out"></main>
<script type="module">
// A stand-in for anywidget's model (get, set, save_changes, on, off), and the kernel's
// answers: for each value of pos the page saves, the state Python sent back.
const state = await (await fetch("state.json")).json();
const bytes = (text) => { const raw = atob(text); const a = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) a[i] = raw.charCodeAt(i); return new DataView(a.buffer); };
const revive = (s) => Object.fromEntries(Object.entries(s).map(([k, v]) =>
  [k, v && v.$bytes !== undefined ? bytes(v.$bytes) : v]));
class Model {
  constructor(values) { this.values = revive(values); this.listeners = {}; this.saved = []; }
  get(name) { return this.values[name]; }
  set(name, value) { this.values[name] = value; this.dirty = {...this.dirty, [name]: value}; }
  on(event, callback) { (this.listeners[event] ??= []).push(callback); }
  off(event, callback) {
    this.listeners[event] = (this.listeners[event] || []).filter((c) => c !== callback); }
  // What the kernel sends: every value first, then a change event per value that changed.
  receive(values) {
    const changed = Object.keys(values).filter((k) => values[k] !== this.values[k]);
    Object.assign(this.values, revive(values));
    for (const name of changed) for (const c of this.listeners[`change:${name}`] || []) c();
  }
  save_changes() {
    const sent = this.dirty || {};
    this.dirty = null;
    this.saved.push(sent);
    const answer = state.answers[String(sent.pos)];
    if (answer) setTimeout(() => this.receive(answer), 5);
  }
}
const model = window.model = new Model(state.opening);
const source = await (await fetch("widget.js")).text();
const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
const widget = (await import(url)).default;
const el = document.getElementById("out");
await widget.render({model, el});
</script></body></html>
"""

DRAWN = "document.getElementById('out').dataset.posvizWidget === 'drawn'"
LINE = """() => {
  const [doc] = document.getElementById("out").posvizDocuments;
  const line = document.getElementById("out").posvizDocuments
    .map((d) => d.get_model_by_name("posviz-710-line")).find(Boolean);
  const marks = document.getElementById("out").posvizDocuments
    .map((d) => d.get_model_by_name("posviz-710-marks")).find(Boolean);
  const position = marks.data instanceof Map ? marks.data.get("position") : marks.data.position;
  return {line: line.location, marks: Array.from(position), doc: Boolean(doc)};
}"""


def shipped(state: dict) -> dict:
    """A widget state as JSON, its bytes as base64 (the page turns them into DataViews)."""
    return {
        key: {"$bytes": base64.b64encode(value).decode()} if isinstance(value, bytes) else value
        for key, value in state.items()
    }


@pytest.fixture(scope="module")
def widget_site(tmp_path_factory):
    from posviz.widget import Figure

    widget = Figure(710, pos=24)
    opening = shipped(widget.get_state())
    answers = {}
    for pos in [*range(25, 31), 40]:
        widget.pos = pos
        answers[str(pos)] = shipped(
            widget.get_state(["pos", "_frame", "_columns", "_pool", "_readout", "_alt", "refused"])
        )
    folder = tmp_path_factory.mktemp("widget-page")
    (folder / "index.html").write_bytes(PAGE)
    (folder / "state.json").write_text(json.dumps({"opening": opening, "answers": answers}))
    (folder / "widget.js").write_text(Figure._esm)  # the module the kernel sends
    with static_server(folder) as url:
        yield url


def opened(page, url):
    page.goto(f"{url}/index.html")
    page.wait_for_function(DRAWN, timeout=30_000)
    return page.locator("#out")


def test_moving_a_slider_sets_the_models_value_and_redraws_the_plot(page, widget_site, blocked):
    out = opened(page, widget_site)
    pos = out.locator("input[type=range]").first
    assert pos.input_value() == "24"
    assert page.evaluate(LINE)["line"] == 24
    plots = out.locator(".posviz-widget-plots")
    before = plots.screenshot()
    pos.focus()
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.getElementById('out').posvizDocuments"
        ".map((d) => d.get_model_by_name('posviz-710-line')).find(Boolean).location === 30"
    )
    saved = page.evaluate("window.model.saved")
    assert [s["pos"] for s in saved] == [25, 26, 27, 28, 29, 30]
    drawn = page.evaluate(LINE)
    assert drawn["marks"] == [30, 30, 30, 30]
    expect(out.locator(".posviz-widget-readout")).to_contain_text("pos = 30")
    expect(out.locator("output").first).to_have_text("30")
    assert plots.screenshot() != before
    assert page.errors == [] and blocked == []


def test_setting_the_model_from_outside_moves_the_slider_and_the_plot(page, widget_site, blocked):
    out = opened(page, widget_site)
    page.evaluate("(async () => window.model.receive((await (await fetch('state.json')).json())"
                  ".answers['40']))()")  # fmt: skip
    page.wait_for_function("() => document.querySelector('#out input[type=range]').value === '40'")
    expect(out.locator("output").first).to_have_text("40")
    page.wait_for_function(f"() => ({LINE})().line === 40")
    expect(out.locator(".posviz-widget-readout")).to_contain_text("pos = 40")
    assert page.evaluate("window.model.saved") == []  # the page echoes nothing back
    assert page.errors == [] and blocked == []


def test_a_refusal_from_the_kernel_is_shown_and_the_slider_keeps_the_kernels_value(
    page, widget_site
):
    out = opened(page, widget_site)
    refused = out.locator(".posviz-widget-refused")
    expect(refused).to_be_hidden()
    message = "figure 710: pos = 101 refused: must be from 0 to 100"
    page.evaluate(f"window.model.receive({{pos: 24, refused: {json.dumps(message)}}})")
    assert refused.inner_text() == message and refused.get_attribute("role") == "alert"
    assert out.locator("input[type=range]").first.input_value() == "24"
    labels = out.locator(".posviz-widget-slider label").all_inner_texts()
    assert labels == ["pos", "d_model"]
