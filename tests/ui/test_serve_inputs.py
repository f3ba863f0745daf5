"""Under `posviz serve`, whatever a browser sends a widget over the websocket that a
reader could not (a refused value, a value of the wrong kind, new labels or bounds)
snaps back: the browser's widget and the figure never disagree, and the server
logs one line for it, never a traceback."""

import time

import pytest
from playwright.sync_api import expect

from tests.support.browser import free_port, posviz_server
from tests.support.pages import slider_title, wait_for_plot

pytestmark = pytest.mark.browser

# Set a property of the Bokeh model of a control, as a tampered page (or a buggy
# client) would; the change travels to the server like a reader's drag. BokehJS's
# own check of the value is skipped: a hand-made websocket message has none.
SET_JS = """([kind, title, prop, value]) => {
  for (const doc of Bokeh.documents) {
    for (const model of doc.all_models) {
      if (model.constructor.__name__ === kind && (title === null || model.title === title)) {
        if (model.properties[prop]) model.properties[prop].validate = () => {};
        model[prop] = value === 'NaN' ? NaN : value === 'Infinity' ? Infinity : value;
        return true;
      }
    }
  }
  return false;
}"""

GET_JS = (
    SET_JS.replace(
        "        if (model.properties[prop]) model.properties[prop].validate = () => {};\n", ""
    )
    .replace(
        "model[prop] = value === 'NaN' ? NaN : value === 'Infinity' ? Infinity : value;\n"
        "        return true;",
        "return String(model[prop]);",
    )
    .replace("return false;", "return null;")
)


def model_value(page, kind, title, prop):
    return page.evaluate(GET_JS, [kind, title, prop, None])


@pytest.fixture(scope="module")
def server_log(tmp_path_factory):
    return tmp_path_factory.mktemp("serve") / "serve.log"


@pytest.fixture(scope="module")
def served(server_log):
    """`posviz serve` for the module, what it prints kept in ``server_log``."""
    port = free_port()
    with posviz_server(port, log=server_log):
        yield f"http://127.0.0.1:{port}"


def logged_since(log, start: int, wanted: str, timeout: float = 15) -> list[str]:
    """The server's lines after line ``start``, once one holds ``wanted`` (or ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = log.read_text("utf-8").splitlines()[start:]
        if any(wanted in line for line in lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", 5000, -7])
def test_a_refused_slider_value_snaps_back_in_the_browser(served, page, bad):
    page.goto(f"{served}/figure-710")
    wait_for_plot(page, "posviz-710-hands")
    assert page.evaluate(SET_JS, ["Slider", "pos", "value", bad])
    page.wait_for_function(
        f"() => ({GET_JS})(['Slider', 'pos', 'value', null]) === '12'", timeout=15_000
    )
    assert slider_title(page, 0, 0) == "pos: 12"
    expect(page.get_by_text("pos = 12 ·").filter(visible=True)).to_be_visible()
    assert page.errors == []


def test_a_missing_preset_button_snaps_back_in_the_browser(served, page):
    page.goto(f"{served}/figure-96")
    wait_for_plot(page, "posviz-96-bars")
    assert model_value(page, "RadioButtonGroup", None, "active") == "0"
    assert page.evaluate(SET_JS, ["RadioButtonGroup", None, "active", 99])
    page.wait_for_function(
        f"() => ({GET_JS})(['RadioButtonGroup', null, 'active', null]) === '0'", timeout=15_000
    )
    expect(page.get_by_text("base · d_model = 512").filter(visible=True)).to_be_visible()
    assert page.errors == []


def test_clicking_custom_on_preset_sizes_keeps_the_preset(served, page):
    page.goto(f"{served}/figure-96")
    wait_for_plot(page, "posviz-96-bars")
    page.get_by_role("button", name="custom").click()
    page.wait_for_function(
        f"() => ({GET_JS})(['RadioButtonGroup', null, 'active', null]) === '0'", timeout=15_000
    )
    expect(page.get_by_text("base · d_model = 512").filter(visible=True)).to_be_visible()
    assert page.errors == []


# (page, plot, Bokeh model kind, its title, property, what a tampered browser sends,
#  what the server shows again, the widget's name in the log)
TAMPERED = [
    ("710", "hands", "Slider", "pos", "value", value, "12", "pos")
    for value in ["abc", None, True, [1, 2], 12.5]
] + [
    ("710", "hands", "Slider", "pos", "end", 500, "100", "pos"),
    ("710", "hands", "Slider", "pos", "disabled", True, "false", "pos"),
    ("96", "bars", "RadioButtonGroup", None, "labels", ["a", "b"], "base,big,custom", "Preset"),
    ("96", "bars", "RadioButtonGroup", None, "active", True, "0", "Preset"),
    ("710", "hands", "Toggle", None, "active", 3, "false", "Show the numbers"),
]


@pytest.mark.parametrize(
    "figure, plot, kind, title, prop, bad, shown, widget",
    TAMPERED,
    ids=[f"{case[2]}.{case[4]}={case[5]!r}" for case in TAMPERED],
)
def test_a_tampered_message_is_refused_in_one_line_and_the_browser_shows_the_server(
    served, server_log, page, figure, plot, kind, title, prop, bad, shown, widget
):
    page.goto(f"{served}/figure-{figure}")
    wait_for_plot(page, f"posviz-{figure}-{plot}")
    start = len(server_log.read_text("utf-8").splitlines())
    assert page.evaluate(SET_JS, [kind, title, prop, bad])
    page.wait_for_function(
        f"([args, shown]) => ({GET_JS})(args) === shown",
        arg=[[kind, title, prop, None], shown],
        timeout=15_000,
    )
    lines = logged_since(server_log, start, "refused")
    assert not [line for line in lines if "traceback" in line.lower() or "error" in line.lower()]
    assert [line for line in lines if "refused" in line and repr(widget) in line], lines
    assert len([line for line in lines if "refused" in line]) == 1, lines
    if figure == "710":
        assert slider_title(page, 0, 0) == "pos: 12"
        expect(page.get_by_text("pos = 12 ·").filter(visible=True)).to_be_visible()
    else:
        expect(page.get_by_role("button", name="custom")).to_be_visible()
        expect(page.get_by_text("base · d_model = 512").filter(visible=True)).to_be_visible()
    assert page.errors == []
