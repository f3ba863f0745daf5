"""Every figure's own view under `posviz serve`, whatever figures exist: it draws,
answers its first slider, and links back to the section that shows it, if any."""

import holoviews as hv
import pytest

from posviz import content
from posviz.drawing import plots
from posviz.figures import FIGURES
from tests.support.pages import FINGERPRINT_JS, press_on_slider

pytestmark = pytest.mark.browser

# Any of the named plots draws something other than it did (its fingerprint changed).
ANY_CHANGED_JS = f"""([names, before]) => {{
  const fingerprint = {FINGERPRINT_JS};
  return names.some((name, i) => {{
    const now = fingerprint(name);
    return now !== null && now !== before[i];
  }});
}}"""


def plot_names(cls) -> list[str]:
    return [hv.render(plot).name for plot in plots(cls())]


@pytest.mark.parametrize("figure_id", list(FIGURES))
def test_every_figure_view_draws_answers_its_slider_and_links_home(
    served, page, blocked, figure_id
):
    cls = FIGURES[figure_id]
    names = plot_names(cls)
    page.goto(f"{served}/figure-{figure_id}")
    page.wait_for_function(
        f"(names) => names.every(name => ({FINGERPRINT_JS})(name) !== null)",
        arg=names,
        timeout=30_000,
    )
    page.locator("h1", has_text=cls.title).first.wait_for()  # its title, the view's h1
    before = [page.evaluate(FINGERPRINT_JS, name) for name in names]
    if page.locator(".posviz-figure .noUi-handle").count():
        press_on_slider(page, 0, 0)
        page.wait_for_function(ANY_CHANGED_JS, arg=[names, before], timeout=15_000)
        page.wait_for_function("() => window.location.search.length > 1")
    home = content.load().home_of(figure_id)
    if home is not None:
        back = page.locator("a", has_text=home.section.heading)
        assert back.first.get_attribute("href") == (
            f"page-{home.page.slug}#section-{home.section.number}"
        )
    assert blocked == [] and page.errors == []
