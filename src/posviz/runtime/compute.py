"""Tier 2 of the static site: a figure's frame computed in the worker, numpy and param only.

The worker imports this module as soon as numpy and param are loaded, long
before Panel, and answers with it every state the precomputed frames do not
hold (two sliders moved, a deep link): ``posviz-frames.js`` applies the answer
as it applies a precomputed frame. It runs the figure's own model
(``posviz.figures.model``): the same frame and texts as every other tier, and
no Panel, HoloViews or Bokeh.
"""

# --- Imports -------------------------------------------------------------------

import html
import importlib
import json

import param

from posviz import deeplinks
from posviz.frames import texts
from posviz.frames.pool import Pool

# --- General API ---------------------------------------------------------------


# What a page's "compute" request carries (export/protocol.js, COMPUTE_REQUEST).
REQUEST_FIELDS = ("module", "figure", "values", "link")


class Refused(ValueError):
    """A request this tier cannot answer; the page waits for Panel instead."""


def model(request: dict):
    """The figure the request names, at its values, or ``Refused`` saying why not."""
    module_name, figure_id = str(request["module"]), request.get("figure")
    if not module_name.startswith("posviz.figures.") or module_name == "posviz.figures.model":
        raise Refused(f"{module_name} is not a figure module")
    module = importlib.import_module(module_name)
    found = [
        cls
        for cls in vars(module).values()
        if isinstance(cls, type) and str(getattr(cls, "figure_id", None)) == str(figure_id)
    ]
    if len(found) != 1:
        raise Refused(f"{module_name} has no figure {figure_id!r}")
    cls, values = found[0], request["values"]
    names = [name for name in cls.param if name != "name"]
    if sorted(values) != sorted(names):
        raise Refused(f"figure {figure_id} takes the values {names}, not {sorted(values)}")
    for name in names:
        value = values[name]
        if isinstance(cls.param[name], param.Integer) and (type(value) is not int):
            raise Refused(f"{name} = {value!r} is not a whole number")
    try:
        figure = cls(**values)
    except ValueError as why:  # out of bounds, not a choice, a query outside its image
        raise Refused(str(why).splitlines()[0]) from None
    # What the figure takes that no widget reaches, as a link is refused (deeplinks):
    # a value off its slider's step.
    for slider in deeplinks.figure_spec(figure)["sliders"]:
        try:
            deeplinks.check(values[slider["name"]], slider)
        except ValueError as why:
            raise Refused(f"{slider['name']} = {values[slider['name']]!r}: {why}") from None
    return figure


def page_texts(figure, link: str) -> dict:
    """The readout, text alternative, deep link and table as Panel's panes hold them."""
    # Panel's HTML and Markdown models carry their HTML escaped once more.
    return {
        "readout": html.escape(texts.markdown_html(figure.readout())),
        "alt": html.escape(texts.alt_html(figure.describe())),
        "link": html.escape(texts.deep_link_html(link, figure.values())),
        "numbers": html.escape(texts.numbers_html(*figure.table())),
    }


def answer(request_json: str) -> tuple[str, bytes]:
    """(the frame as JSON, its arrays' pool) for a page's request, read as ``frames.js`` reads.

    The request: ``module`` and ``figure`` (the figure's module and id),
    ``values`` and ``link`` (the figure view's address). A state this tier
    refuses comes back as ``{"refused": why}``.
    """
    request = json.loads(request_json)
    missing = [field for field in REQUEST_FIELDS if field not in request]
    if missing:
        return json.dumps({"refused": f"the request lacks {', '.join(missing)}"}), b""
    try:
        figure = model(request)
    except Refused as why:
        return json.dumps({"refused": str(why)}), b""
    pool = Pool()
    part = pool.encode(figure.frame())
    found = {
        "values": figure.values(),
        "bounds": figure.moved_bounds(),
        "part": part,
        "columns": pool.columns,
        "text": page_texts(figure, request["link"]),
    }
    return json.dumps(found, separators=(",", ":")), bytes(pool.blob)
