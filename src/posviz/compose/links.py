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

import html
import re
from urllib.parse import parse_qsl

import panel as pn
import param

from posviz.styles import NOTICE_CSS

MAX_FIELDS = 50
MAX_SHOWN = 10
MAX_TEXT = 40
FIGURE_PREFIX = re.compile(r"[0-9]{1,9}")


def clip(text: str) -> str:
    """URL text cut short for the notice."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


WHOLE = re.compile(r"-?[0-9]{1,9}")
DECIMAL = re.compile(r"-?[0-9]{1,9}(?:\.[0-9]{1,9})?")
TRUTH = {"true": True, "1": True, "false": False, "0": False}


def parse(raw: str, parameter: param.Parameter):
    """The value ``raw`` stands for, or ValueError saying what is allowed.

    Each parameter type reads its own grammar: a choice is matched by its text
    (so a Selector of numbers gives back the number, not the string), whole and
    decimal numbers by bounded digit patterns, a switch by true/false.
    """
    if isinstance(parameter, param.Selector):
        by_text = {str(choice): choice for choice in parameter.objects}
        # Older links may name a choice by another word (a figure's link_aliases).
        raw = getattr(parameter.owner, "link_aliases", {}).get(parameter.name, {}).get(raw, raw)
        if raw not in by_text:
            raise ValueError(f"must be one of {', '.join(by_text)}")
        return by_text[raw]
    if isinstance(parameter, param.Boolean):
        if raw.lower() not in TRUTH:
            raise ValueError("must be true or false")
        return TRUTH[raw.lower()]
    if isinstance(parameter, param.Integer):
        if not WHOLE.fullmatch(raw):
            raise ValueError(f"must be a whole number {span(parameter)}")
        return int(raw)
    if isinstance(parameter, param.Number):
        if not DECIMAL.fullmatch(raw):
            raise ValueError(f"must be a number {span(parameter)}")
        return float(raw)
    if isinstance(parameter, param.String):
        if len(raw) > MAX_TEXT:
            raise ValueError(f"must be at most {MAX_TEXT} characters")
        return raw
    raise ValueError("cannot be set from a link")


def span(parameter: param.Parameter) -> str:
    """``from LOW to HIGH`` for a number with bounds, else nothing more to say."""
    low, high = getattr(parameter, "bounds", None) or (None, None)
    if low is None and high is None:
        return "(any)"
    if high is None:
        return f"of at least {low}"
    if low is None:
        return f"of at most {high}"
    return f"from {low} to {high}"


def refusal(parameter: param.Parameter, value, why: Exception) -> str:
    """Why ``param`` refused ``value``: its bounds when it is outside them, else param's words."""
    low, high = getattr(parameter, "bounds", None) or (None, None)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if (low is not None and value < low) or (high is not None and value > high):
            return f"must be {span(parameter)}"
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

    def key(self, figure_id: int, name: str) -> str:
        """The query key of a slider: bare on a one-figure view, else ``<id>.<name>``."""
        return name if self.single else f"{figure_id}.{name}"

    def resolve(self, key: str):
        """(figure, parameter name) for a query key, or ValueError."""
        if "." in key:
            prefix, name = key.split(".", 1)
            known = FIGURE_PREFIX.fullmatch(prefix)
            figure = self.figures.get(int(prefix)) if known else None
            if figure is None:
                raise ValueError(f"there is no figure {clip(prefix)} on this page")
            if name not in figure.sliders():
                raise ValueError(f"figure {prefix} has no slider '{clip(name)}'")
            return figure, name
        owners = [figure for figure in self.figures.values() if key in figure.sliders()]
        if not owners:
            raise ValueError("no figure on this page has that slider")
        if len(owners) > 1:
            ids = " or ".join(f"{f.figure_id}.{key}" for f in owners)
            raise ValueError(f"more than one figure here has it; write {ids}")
        return owners[0], key

    def apply(self, search: str):
        """Set the sliders a URL query names; show what was ignored and why."""
        if self._pushing or search == self._seen_search:
            return
        self._seen_search = search
        problems = []
        fields = [f for f in search.lstrip("?").split("&") if f]
        pairs = parse_qsl("&".join(fields[:MAX_FIELDS]), keep_blank_values=True)
        # Where each setting goes, to find a slider that the link sets twice.
        targets: dict = {}
        for key, raw in pairs:
            try:
                targets.setdefault(self.resolve(key), []).append(f"{clip(key)}={clip(raw)}")
            except ValueError:
                pass
        updates: dict = {}
        reported = set()
        for key, raw in pairs:
            written = f"{clip(key)}={clip(raw)}"
            try:
                figure, name = self.resolve(key)
                given = targets[(figure, name)]
                if len(given) > 1:
                    if (figure, name) not in reported:
                        reported.add((figure, name))
                        problems.append(
                            f"{', '.join(given)}: the link sets {figure.figure_id}.{name} "
                            f"{len(given)} times; none of them is applied"
                        )
                    continue
                updates.setdefault(figure, {})[name] = (
                    written,
                    parse(raw, figure.param[name]),
                )
            except ValueError as why:
                problems.append(f"{written}: {why}")
        if len(fields) > MAX_FIELDS:
            problems.insert(
                0, f"the link has {len(fields)} settings; only the first {MAX_FIELDS} were read"
            )
        for figure, values in updates.items():
            # Declaration order, so that an image side is set before a row in it.
            for name in [n for n in figure.sliders() if n in values]:
                written, value = values[name]
                try:
                    setattr(figure, name, value)
                except ValueError as why:
                    problems.append(f"{written}: {refusal(figure.param[name], value, why)}")
        self.show(problems)

    def show(self, problems: list[str]):
        """Show the notice with ``problems`` (escaped, at most MAX_SHOWN), or hide it."""
        if not problems:
            self.notice.visible = False
            return
        shown = problems[:MAX_SHOWN]
        if len(problems) > MAX_SHOWN:
            shown.append(f"and {len(problems) - MAX_SHOWN} more")
        items = "".join(f"<li>{html.escape(problem)}</li>" for problem in shown)
        self.notice.object = f"<strong>Some link settings were ignored</strong><ul>{items}</ul>"
        self.notice.visible = True

    def push(self, figure_id: int, *events):
        """Write slider changes into the URL query without reading them back."""
        self._pushing = True
        try:
            self.location.update_query(
                **{self.key(figure_id, event.name): event.new for event in events}
            )
        finally:
            self._pushing = False
        self._seen_search = self.location.search
