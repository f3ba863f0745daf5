"""Under `posviz serve`, a widget value the figure refuses, sent over the websocket,
snaps back: the browser's widget and the figure never disagree."""

import pytest
from playwright.sync_api import expect

from tests.support.pages import slider_title, wait_for_plot

pytestmark = pytest.mark.browser

# Set a property of the Bokeh model of a control, as a tampered page (or a buggy
# client) would; the change travels to the server like a reader's drag.
SET_JS = """([kind, title, prop, value]) => {
  for (const doc of Bokeh.documents) {
    for (const model of doc.all_models) {
      if (model.constructor.__name__ === kind && (title === null || model.title === title)) {
        model[prop] = value === 'NaN' ? NaN : value === 'Infinity' ? Infinity : value;
        return true;
      }
    }
  }
  return false;
}"""

GET_JS = SET_JS.replace(
    "model[prop] = value === 'NaN' ? NaN : value === 'Infinity' ? Infinity : value;\n"
    "        return true;",
    "return String(model[prop]);",
).replace("return false;", "return null;")


def model_value(page, kind, title, prop):
    return page.evaluate(GET_JS, [kind, title, prop, None])


@pytest.mark.parametrize("bad", ["NaN", "Infinity", 5000, -7])
def test_a_refused_slider_value_snaps_back_in_the_browser(served, page, bad):
    page.goto(f"{served}/figure-710")
    wait_for_plot(page, "posviz-710-hands")
    assert page.evaluate(SET_JS, ["Slider", "pos", "value", bad])
    page.wait_for_function(
        f"() => ({GET_JS})(['Slider', 'pos', 'value', null]) === '12'", timeout=15_000
    )
    assert slider_title(page, 0, 0) == "pos: 12"
    expect(page.get_by_text("pos = 12 ·")).to_be_visible()
    assert page.errors == []


def test_a_missing_preset_button_snaps_back_in_the_browser(served, page):
    page.goto(f"{served}/figure-96")
    wait_for_plot(page, "posviz-96-bars")
    assert model_value(page, "RadioButtonGroup", None, "active") == "0"
    assert page.evaluate(SET_JS, ["RadioButtonGroup", None, "active", 99])
    page.wait_for_function(
        f"() => ({GET_JS})(['RadioButtonGroup', null, 'active', null]) === '0'", timeout=15_000
    )
    expect(page.get_by_text("base · d_model = 512")).to_be_visible()
    assert page.errors == []


def test_clicking_custom_on_preset_sizes_keeps_the_preset(served, page):
    page.goto(f"{served}/figure-96")
    wait_for_plot(page, "posviz-96-bars")
    page.get_by_role("button", name="custom").click()
    page.wait_for_function(
        f"() => ({GET_JS})(['RadioButtonGroup', null, 'active', null]) === '0'", timeout=15_000
    )
    expect(page.get_by_text("base · d_model = 512")).to_be_visible()
    assert page.errors == []
