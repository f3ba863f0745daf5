"""posviz.myst's widget module in Chromium, laid out as MyST's html export lays it out.

MyST's theme imports the module from ``<site>/build/`` and calls its ``render``
into a shadow root; a stand-in page does the same here, and a stand-in figure
page posts its height as posviz's figure pages do.
"""

import pytest

from posviz import myst
from tests.support.browser import sealed_context, static_server

pytestmark = pytest.mark.browser

THEME = """<!doctype html><html><body><div id="host"></div><script type="module">
import widget from "./build/posviz-embed.mjs";
const model = {get: (key) => ({site: "_posviz/", path: "figure-710.html?pos=24",
  title: "Clock hands", height: 300, caption: "Drag pos."})[key]};
const root = document.getElementById("host").attachShadow({mode: "open"});
const el = document.createElement("div");
// A theme that sizes a figure to its content, as Material does.
const rule = document.createElement("style");
rule.textContent = "figure { width: fit-content; margin: 1em auto; }";
root.append(rule, el);
widget.render({model, el});
</script></body></html>"""

FIGURE = """<!doctype html><body><script>
const posted = () => window.parent.postMessage({posviz: "height", height: 911.4}, "*");
posted();
setInterval(posted, 200);
</script></body>"""


def test_the_widget_draws_the_titled_iframe_and_sizes_it_to_its_page(tmp_path, browser):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "posviz-embed.mjs").write_text(myst.widget_source(), "utf-8")
    (tmp_path / "_posviz").mkdir()
    (tmp_path / "_posviz" / "figure-710.html").write_text(FIGURE, "utf-8")
    (tmp_path / "index.html").write_text(THEME, "utf-8")
    blocked: list = []
    with static_server(tmp_path) as url:  # the suite's one Chromium (tests/ui/conftest.py)
        page = sealed_context(browser, blocked).new_page()
        page.goto(f"{url}/index.html")
        frame = page.locator("#host iframe")  # Playwright pierces the open shadow root
        frame.wait_for()
        assert frame.get_attribute("title") == "Clock hands"
        assert (
            page.evaluate("document.querySelector('#host').shadowRoot.querySelector('iframe').src")
            == f"{url}/_posviz/figure-710.html?pos=24"
        )
        page.wait_for_function(
            "document.querySelector('#host').shadowRoot.querySelector('iframe')"
            ".style.height === '912px'"
        )
        assert "Drag pos." in page.locator("#host figcaption").inner_text()
        widths = page.evaluate(
            "[document.querySelector('#host').getBoundingClientRect().width, document"
            ".querySelector('#host').shadowRoot.querySelector('iframe').getBoundingClientRect().width]"
        )
        assert widths[1] == widths[0], f"the iframe is {widths[1]} px wide in {widths[0]} px"
    assert blocked == []
