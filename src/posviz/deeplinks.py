"""The deep-link grammar: one set of rules for Python and for the page's preview.

A deep link carries slider values in the URL query (``710.pos=12``). Two
readers apply it: Python (``compose/links.py``, under ``posviz serve`` and in
the static site's live tier) and the page's frames tier before Python is up
(``export/links.js``). Both read it with the rules below, written twice, once
per language, and held together by one file of test vectors that a Python and
a Node test both read (``tests/data/link_vectors.json``), so the preview never
shows a state that Python then contradicts.

The rules, for anyone's link:

* at most ``MAX_FIELDS`` settings are read, in order; URL text in a message is
  cut to ``MAX_TEXT`` characters;
* a key is ``<figure id>.<slider>``, or the bare slider where one figure on the
  page has it (or the page shows one figure);
* a slider set twice (``pos=1&pos=2``, or ``pos`` with ``710.pos``) is not
  guessed at: neither value is applied;
* a value is read by its slider's type: a choice by its text (or an older
  word for it, the figure's ``link_aliases``), whole numbers of at most 9
  digits, decimals, true/false; then checked against its bounds, its step
  and its parity. A slider whose bounds the others move is checked by the
  figure itself when set.

A page describes its sliders to these functions as plain data (``page_spec``),
the same JSON the page's script receives, so neither side needs the other's
objects. Stdlib and duck-typed param only: the numpy tier runs it too.
"""

import html
import re
from urllib.parse import parse_qsl, quote

MAX_FIELDS = 50
MAX_SHOWN = 10
MAX_TEXT = 40
FIGURE_PREFIX = re.compile(r"[0-9]{1,9}")
WHOLE = re.compile(r"-?[0-9]{1,9}")
DECIMAL = re.compile(r"-?[0-9]{1,9}(?:\.[0-9]{1,9})?")
TRUTH = {"true": True, "1": True, "false": False, "0": False}
NOTICE_TITLE = "Some link settings were ignored"


def clip(text: str) -> str:
    """URL text cut short for a message."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


# --- a slider as data ------------------------------------------------------------


def span(bounds) -> str:
    """``from LOW to HIGH`` for bounds, with either end open."""
    low, high = bounds or (None, None)
    if low is None and high is None:
        return "(any)"
    if high is None:
        return f"of at least {low}"
    if low is None:
        return f"of at most {high}"
    return f"from {low} to {high}"


def slider_spec(parameter, name: str, aliases: dict | None = None, moving: bool = False) -> dict:
    """What the grammar needs of one param parameter, as JSON-able data.

    Texts that Python formats (the bounds, the choices) are written here once,
    so the browser's messages are Python's, word for word. ``moving``: the
    figure moves this slider's bounds, so only the figure can check them.
    """
    kind = type(parameter).__mro__
    names = {cls.__name__ for cls in kind}
    if "Selector" in names or "ObjectSelector" in names:
        choices = [[str(choice), choice] for choice in parameter.objects]
        return {"name": name, "type": "choice", "choices": choices, "aliases": aliases or {}}
    if "Boolean" in names:
        return {"name": name, "type": "boolean"}
    if "Integer" in names or "Number" in names:
        bounds = list(parameter.bounds) if getattr(parameter, "bounds", None) else None
        spec = {
            "name": name,
            "type": "integer" if "Integer" in names else "number",
            "span": span(bounds),
            "bounds": None if moving else bounds,
        }
        step = getattr(parameter, "step", None)
        if spec["type"] == "integer" and step and step > 1 and bounds and bounds[0] is not None:
            spec["step"], spec["start"] = step, bounds[0]
        if getattr(parameter, "even", False):
            spec["even"] = True
        return spec
    if "String" in names:
        return {"name": name, "type": "text"}
    return {"name": name, "type": "none"}


def figure_spec(figure) -> dict:
    """``{"id", "sliders"}`` of a figure: anything with ``figure_id``, ``sliders()``, ``param``."""
    aliases = getattr(figure, "link_aliases", {}) or {}
    moving_of = getattr(type(figure), "moving_sliders", None)
    moving = set(moving_of()) if moving_of else set()
    sliders = [
        slider_spec(figure.param[name], name, aliases.get(name), name in moving)
        for name in figure.sliders()
    ]
    return {"id": int(figure.figure_id), "sliders": sliders}


def page_spec(figures, single: bool) -> dict:
    """A page's sliders as the grammar reads them: figures in reading order."""
    return {"single": bool(single), "figures": [figure_spec(figure) for figure in figures]}


# --- reading a value ----------------------------------------------------------------


def parse_text(raw: str, spec: dict):
    """The value ``raw`` stands for by its type's grammar, or ValueError saying what is allowed."""
    kind = spec["type"]
    if kind == "choice":
        raw = spec.get("aliases", {}).get(raw, raw)
        for text, value in spec["choices"]:
            if text == raw:
                return value
        raise ValueError(f"must be one of {', '.join(text for text, _ in spec['choices'])}")
    if kind == "boolean":
        if raw.lower() not in TRUTH:
            raise ValueError("must be true or false")
        return TRUTH[raw.lower()]
    if kind == "integer":
        if not WHOLE.fullmatch(raw):
            raise ValueError(f"must be a whole number {spec['span']}")
        return int(raw)
    if kind == "number":
        if not DECIMAL.fullmatch(raw):
            raise ValueError(f"must be a number {spec['span']}")
        return float(raw)
    if kind == "text":
        if len(raw) > MAX_TEXT:
            raise ValueError(f"must be at most {MAX_TEXT} characters")
        return raw
    raise ValueError("cannot be set from a link")


def check(value, spec: dict) -> None:
    """ValueError if ``value`` is outside the slider's bounds, off its step, or odd when even."""
    if spec["type"] not in ("integer", "number"):
        return
    low, high = spec.get("bounds") or (None, None)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"must be {spec['span']}")
    if spec.get("even") and value % 2:
        raise ValueError("must be even")
    step = spec.get("step")
    if step and (value - spec["start"]) % step:
        raise ValueError(f"must be in steps of {step} {spec['span']}")


def state_key(values) -> str:
    """A moved-bounds table key for movers' values: each as text, joined by ``|``."""
    return "|".join(str(value) for value in values)


def check_moved(value, moves: dict, values: dict) -> None:
    """ValueError if ``value`` is outside the bounds that its movers' ``values`` give it.

    ``moves`` is one slider's entry of ``Figure.moving_bounds()``; a mover not in
    ``values`` keeps its opening value. A state the table lacks is left to the figure.
    """
    state = [values.get(name, moves["at"][name]) for name in moves["by"]]
    bounds = moves["bounds"].get(state_key(state))
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        pairs = zip(moves["by"], state, strict=True)
        when = " and ".join(f"{name} is {value}" for name, value in pairs)
        raise ValueError(f"must be {span(bounds)} when {when}")


def parse(raw: str, spec: dict):
    """``raw`` read by its slider's grammar, then checked: the value, or ValueError."""
    value = parse_text(raw, spec)
    check(value, spec)
    return value


# --- reading a link -----------------------------------------------------------------


def resolve(key: str, page: dict) -> tuple[int, str]:
    """(figure id, slider name) a query key names on ``page``, or ValueError."""
    figures = page["figures"]
    if "." in key:
        prefix, name = key.split(".", 1)
        found = [f for f in figures if FIGURE_PREFIX.fullmatch(prefix) and f["id"] == int(prefix)]
        if not found:
            raise ValueError(f"there is no figure {clip(prefix)} on this page")
        if name not in [s["name"] for s in found[0]["sliders"]]:
            raise ValueError(f"figure {prefix} has no slider '{clip(name)}'")
        return found[0]["id"], name
    owners = [f for f in figures if key in [s["name"] for s in f["sliders"]]]
    if not owners:
        raise ValueError("no figure on this page has that slider")
    if len(owners) > 1:
        ids = " or ".join(f"{f['id']}.{key}" for f in owners)
        raise ValueError(f"more than one figure here has it; write {ids}")
    return owners[0]["id"], key


def fields(search: str) -> list[str]:
    """The query's settings as written, empty ones dropped."""
    return [field for field in search.lstrip("?").split("&") if field]


def pairs(search: str) -> list[tuple[str, str]]:
    """(key, value) of the first ``MAX_FIELDS`` settings, decoded."""
    return parse_qsl("&".join(fields(search)[:MAX_FIELDS]), keep_blank_values=True)


def slider_of(page: dict, figure_id: int, name: str) -> dict:
    """The spec of slider ``name`` of figure ``figure_id``."""
    figure = next(f for f in page["figures"] if f["id"] == figure_id)
    return next(s for s in figure["sliders"] if s["name"] == name)


def read(search: str, page: dict) -> dict:
    """``{"values": {figure id: {slider: value}}, "problems": [...], "written": ...}``.

    What a link asks of ``page``: values in each figure's declaration order;
    problems in the order of the settings, the unread count first; ``written``
    each applied setting as the link wrote it (``{id: {slider: "pos=30"}}``),
    for the figure's own refusal when it is set.
    """
    given = pairs(search)
    targets: dict = {}  # where each setting goes, to find a slider set twice
    for key, raw in given:
        try:
            targets.setdefault(resolve(key, page), []).append(f"{clip(key)}={clip(raw)}")
        except ValueError:
            pass
    found: dict = {}
    written_as: dict = {}
    problems: list[str] = []
    reported = set()
    for key, raw in given:
        written = f"{clip(key)}={clip(raw)}"
        try:
            figure_id, name = resolve(key, page)
            settings = targets[(figure_id, name)]
            if len(settings) > 1:
                if (figure_id, name) not in reported:
                    reported.add((figure_id, name))
                    problems.append(
                        f"{', '.join(settings)}: the link sets {figure_id}.{name} "
                        f"{len(settings)} times; none of them is applied"
                    )
                continue
            found.setdefault(figure_id, {})[name] = parse(raw, slider_of(page, figure_id, name))
            written_as.setdefault(figure_id, {})[name] = written
        except ValueError as why:
            problems.append(f"{written}: {why}")
    count = len(fields(search))
    if count > MAX_FIELDS:
        problems.insert(0, f"the link has {count} settings; only the first {MAX_FIELDS} were read")
    values = {}
    for figure in page["figures"]:
        asked = found.get(figure["id"])
        if asked:
            values[figure["id"]] = {
                s["name"]: asked[s["name"]] for s in figure["sliders"] if s["name"] in asked
            }
    return {"values": values, "problems": problems, "written": written_as}


def notice_html(problems: list[str]) -> str:
    """The notice's HTML for ``problems`` (escaped, at most ``MAX_SHOWN``), or ``""``."""
    if not problems:
        return ""
    shown = problems[:MAX_SHOWN]
    if len(problems) > MAX_SHOWN:
        shown.append(f"and {len(problems) - MAX_SHOWN} more")
    items = "".join(f"<li>{html.escape(problem)}</li>" for problem in shown)
    return f"<strong>{NOTICE_TITLE}</strong><ul>{items}</ul>"


# --- writing a link -----------------------------------------------------------------


def value_text(value, spec: dict) -> str:
    """A value as the link writes it: a choice by its text, a switch as true/false."""
    if spec["type"] == "choice":
        for text, choice in spec["choices"]:
            if choice == value and type(choice) is type(value):
                return text
    if spec["type"] == "boolean":
        return "true" if value else "false"
    return str(value)


def key_of(page: dict, figure_id: int, name: str) -> str:
    """The key a slider is written under: bare on a one-figure page, else ``<id>.<name>``."""
    return name if page["single"] else f"{figure_id}.{name}"


def names_slider(field: str, page: dict, figure_id: int, name: str) -> bool:
    """Whether a setting names that slider, bare or with its figure's id."""
    key = parse_qsl(field, keep_blank_values=True)
    key = key[0][0] if key else field.split("=", 1)[0]
    return key in (name, f"{figure_id}.{name}")


def write(search: str, page: dict, changes: dict) -> str:
    """The query after the reader set ``changes`` (``{figure id: {slider: value}}``).

    Every setting that names a changed slider, bare or prefixed, goes; the new
    settings come first, so a link's first ``MAX_FIELDS`` always hold them.
    """
    kept = fields(search)
    written = []
    for figure in page["figures"]:
        for spec in figure["sliders"]:
            if spec["name"] not in changes.get(figure["id"], {}):
                continue
            value = changes[figure["id"]][spec["name"]]
            kept = [f for f in kept if not names_slider(f, page, figure["id"], spec["name"])]
            key = quote(key_of(page, figure["id"], spec["name"]), safe="")
            written.append(f"{key}={quote(value_text(value, spec), safe='')}")
    query = "&".join(written + kept)
    return f"?{query}" if query else ""
