"""Tier 2 of the static site: a figure's frame computed in the worker, numpy only.

The worker imports this module as soon as numpy is loaded, long before Panel,
and answers with it every state the precomputed frames do not hold (two sliders
moved, a deep link): ``posviz-frames.js`` applies the answer as it applies a
precomputed frame. It imports the figures' frame modules (``posviz.frames``)
and their maths only: no Panel, HoloViews, Bokeh or param.
"""

# --- Imports -------------------------------------------------------------------

import html
import importlib
import json

from posviz.frames import texts
from posviz.frames.pool import Pool

# --- General API ---------------------------------------------------------------


class Refused(ValueError):
    """A request this tier cannot answer; the page waits for Panel instead."""


def check(sliders: list[dict], values: dict, module) -> dict:
    """``values`` with every slider present and in its bounds, or ``Refused`` naming which."""
    checked = {}
    limits = module.bounds(values) if hasattr(module, "bounds") else {}
    for slider in sliders:
        name = slider["name"]
        if name not in values:
            raise Refused(f"no value for {name}")
        value = values[name]
        if slider["kind"] == "buttons":
            if value not in slider["options"]:
                raise Refused(f"{name} = {value!r} is not one of {slider['options']}")
        else:
            low, high = limits.get(name, slider["bounds"])
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise Refused(f"{name} = {value!r} is outside {low}..{high}")
        checked[name] = value
    return checked


def page_texts(module, request: dict, values: dict) -> dict | None:
    """The readout, text alternative, deep link and table as Panel's panes hold them.

    None when the figure's frame module does not write its readout (then only
    Panel can).
    """
    if not hasattr(module, "readout"):
        return None
    readout = module.readout(values)
    if hasattr(module, "describe"):
        sentence = module.describe(values)
    else:  # Figure.describe's default
        sentence = f"{request['title']}: " + readout.replace("**", "").replace("  \n", " ")
    if hasattr(module, "table"):
        table = module.table(values)
    else:  # Figure.table's default
        labels = {s["name"]: s["label"] for s in request["sliders"]}
        table = ("Slider values", ["slider", "value"], [(labels[n], v) for n, v in values.items()])
    # Panel's HTML and Markdown models carry their HTML escaped once more.
    return {
        "readout": html.escape(texts.markdown_html(readout)),
        "alt": html.escape(texts.alt_html(sentence)),
        "link": html.escape(texts.deep_link_html(request["link"], values)),
        "numbers": html.escape(texts.numbers_html(*table)),
    }


def answer(request_json: str) -> tuple[str, bytes]:
    """(the frame as JSON, its arrays' pool) for a page's request, read as ``frames.js`` reads.

    The request: ``module`` (the figure's frame module), ``sliders`` (as the
    build's ``sliders_of`` writes them), ``values``, ``link`` (the figure
    view's address) and ``title``. A state this tier refuses comes back as
    ``{"refused": why}``.
    """
    request = json.loads(request_json)
    module_name = str(request["module"])
    if not module_name.startswith("posviz.frames."):
        return json.dumps({"refused": f"{module_name} is not a frame module"}), b""
    module = importlib.import_module(module_name)
    try:
        values = check(request["sliders"], request["values"], module)
    except Refused as why:
        return json.dumps({"refused": str(why)}), b""
    pool = Pool()
    part = pool.encode(module.frame(values))
    limits = module.bounds(values) if hasattr(module, "bounds") else {}
    bounds = {name: list(limit) for name, limit in limits.items()}
    found = {
        "values": values,
        "bounds": bounds,
        "part": part,
        "columns": pool.columns,
        "text": page_texts(module, request, values),
    }
    return json.dumps(found, separators=(",", ":")), bytes(pool.blob)
