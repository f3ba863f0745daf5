"""Deep links: slider values mirrored into the URL query and read back on load.

Keys are ``<figure id>.<parameter>`` (``710.pos=12``). Where a view shows
one figure, or only one of its figures has that parameter, the bare name
(``pos=12``) is accepted too. A value that is not a number, is out of bounds,
or names an unknown key is ignored, and the notice says which and why. URL
text is escaped before it is shown: nothing from the URL becomes HTML.

A link is data from anyone: at most ``MAX_FIELDS`` settings are read, URL
text in the notice is cut to ``MAX_TEXT`` characters and the notice lists at
most ``MAX_SHOWN`` problems. A slider set twice (``pos=1&pos=2``, or ``pos``
with ``710.pos``) is not guessed at: neither value is applied, and the notice
says so.
"""

import panel as pn
import param

from posviz import deeplinks
from posviz.deeplinks import MAX_FIELDS, MAX_SHOWN, MAX_TEXT, clip, span  # noqa: F401
from posviz.styles import NOTICE_CSS


def parse(raw: str, parameter: param.Parameter):
    """The value ``raw`` stands for by ``parameter``'s grammar, or ValueError saying why not.

    The grammar alone (``deeplinks.parse_text``): bounds and the figure's own
    checks are for whoever sets the value.
    """
    aliases = getattr(parameter.owner, "link_aliases", {}).get(parameter.name, {})
    return deeplinks.parse_text(raw, deeplinks.slider_spec(parameter, parameter.name, aliases))


def refusal(parameter: param.Parameter, value, why: Exception) -> str:
    """Why ``param`` refused ``value``: its bounds when it is outside them, else param's words."""
    low, high = getattr(parameter, "bounds", None) or (None, None)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if (low is not None and value < low) or (high is not None and value > high):
            return f"must be {span((low, high))}"
    return str(why).split("' ", 1)[-1]


class DeepLinks:
    """Keeps one view's figures and its URL query in step."""

    def __init__(self, figures: dict[int, object], single: bool):
        self.figures = figures
        self.single = single
        self.notice = pn.pane.HTML(
            "",
            visible=False,
            css_classes=["posviz-notice"],
            stylesheets=[NOTICE_CSS],
            sizing_mode="stretch_width",
        )
        self._seen_search = None
        self._pushing = False
        self.page = deeplinks.page_spec(figures.values(), single)
        location = pn.state.location
        if location is None:
            return
        self.location = location
        self.apply(location.search)
        location.param.watch(lambda event: self.apply(event.new), "search")
        for figure_id, figure in figures.items():
            # A batched change (a preset moving several sliders) arrives as one call.
            figure.param.watch(
                lambda *events, fid=figure_id: self.push(fid, *events), figure.sliders()
            )

    def apply(self, search: str):
        """Set the sliders a URL query names (``deeplinks.read``); show what was ignored and why."""
        if self._pushing or search == self._seen_search:
            return
        self._seen_search = search
        asked = deeplinks.read(search, self.page)
        problems = asked["problems"]
        for figure_id, values in asked["values"].items():
            figure = self.figures[figure_id]
            # Declaration order, so that an image side is set before a row in it.
            for name, value in values.items():
                try:
                    setattr(figure, name, value)
                except ValueError as why:
                    written = asked["written"][figure_id][name]
                    problems.append(f"{written}: {refusal(figure.param[name], value, why)}")
        self.show(problems)

    def show(self, problems: list[str]):
        """Show the notice with ``problems`` (escaped, at most MAX_SHOWN), or hide it."""
        self.notice.object = deeplinks.notice_html(problems) or self.notice.object
        self.notice.visible = bool(problems)

    def push(self, figure_id: int, *events):
        """Write slider changes into the URL query (``deeplinks.write``), not reading them back."""
        changes = {figure_id: {event.name: event.new for event in events}}
        self._pushing = True
        try:
            self.location.search = deeplinks.write(self.location.search, self.page, changes)
        finally:
            self._pushing = False
        self._seen_search = self.location.search
