"""Tier 1 of the export: frames computed at build time, applied in the page before Python.

For each figure, the states a reader reaches from the page's opening state by
moving one slider (every value of every slider, the others held) are computed
with the figure itself, and written beside the pages as ``frames/<id>.json.gz``
(states, texts, which slider is which) and ``frames/<id>.bin.gz`` (every column,
each distinct array once: whole numbers as bytes or int32, the rest float64,
so a frame is exact). ``frames.js`` loads them after the paint, checks their
sha256 (listed in ``site.json`` and in each page) and applies a frame to the
pre-rendered BokehJS models, found by name, when the reader moves a slider.
"""

import gzip
import hashlib
import html
import itertools
import json
from pathlib import Path

import panel as pn
import param
from bokeh.document import Document

from posviz import deeplinks
from posviz.compose.routes import figure_route, href
from posviz.drawing import model_name
from posviz.drawing.layout import numbers_html
from posviz.frames.pool import Pool

FRAME_DIR = "frames/"
# The most a site's frames may weigh, all figures together (bytes).
BUDGET = 1_000_000
# A figure whose whole state space is at most this many states ships all of it.
WHOLE_SPACE = 400
TEXT_CLASSES = {"readout": "posviz-readout", "alt": "posviz-alt"}


class FrameError(RuntimeError):
    """The frames could not be computed or are over budget."""


def slider_values(figure, name: str) -> list:
    """Every value a slider takes at the figure's current state, in order."""
    parameter = figure.param[name]
    if isinstance(parameter, param.Selector):
        objects = parameter.objects
        return list(objects.values()) if isinstance(objects, dict) else list(objects)
    low, high = parameter.bounds
    return list(range(low, high + 1, parameter.step or 1))


def key_of(figure, values: dict) -> str:
    """The key of a state: the values of the sliders the others do not imply."""
    return json.dumps(
        [values[n] for n in figure.sliders() if n not in figure.implied], separators=(",", ":")
    )


def set_state(figure, values: dict) -> None:
    """Move ``figure`` to ``values`` in declaration order (a side before a row in it)."""
    for name in figure.sliders():
        if name not in figure.implied and getattr(figure, name) != values[name]:
            setattr(figure, name, values[name])
    if figure.values() != values:
        raise FrameError(f"{type(figure).__name__}: could not reach {values}")


def reachable(cls) -> tuple[dict, dict, dict]:
    """(states by key, requested key → key, implied moves) reachable from the opening state."""
    opening = cls()
    start = opening.values()
    states = {key_of(opening, start): start}
    aliases: dict = {}
    moves: dict = {name: {} for name in opening.implied}
    space = 1
    for name in opening.sliders():
        space *= len(slider_values(opening, name))
    if space <= WHOLE_SPACE:
        names = [n for n in opening.sliders() if n not in opening.implied]
        for combo in itertools.product(*(slider_values(opening, n) for n in names)):
            try:
                figure = cls(**dict(zip(names, combo, strict=True)))
            except ValueError:
                continue
            states.setdefault(key_of(figure, figure.values()), figure.values())
    for name in opening.sliders():
        for value in slider_values(opening, name):
            figure = cls()
            setattr(figure, name, value)
            reached = figure.values()
            key = key_of(figure, reached)
            states.setdefault(key, reached)
            if name in opening.implied:
                # A choice the figure does not keep ("custom" while the sizes are a
                # preset's) leaves the state as it is, wherever the reader is.
                moves[name][str(value)] = None if reached[name] != value else key
            else:
                asked = key_of(figure, {**start, name: value})
                if asked != key:
                    aliases[asked] = key
    return states, aliases, moves


def text_models(figure, doc: Document) -> dict:
    """The figure layout's text models by role: readout, alt (text alternative), link."""
    found = {}
    # doc.models is a set: its order (so which string is numbered first) would change
    # with the process's hash seed; the models' ids give one order in every build.
    for model in sorted(doc.models, key=lambda model: model.id):
        properties = model.properties()
        if "css_classes" in properties:
            for role, css in TEXT_CLASSES.items():
                if css in model.css_classes:
                    found[role] = model
        if "text" in properties and isinstance(model.text, str) and "posviz-deeplink" in model.text:
            found["link"] = model
    missing = {*TEXT_CLASSES, "link"} - found.keys()
    if missing:
        raise FrameError(f"figure {figure.figure_id}: no {', '.join(sorted(missing))} pane found")
    return found


def texts(figure, models: dict) -> dict:
    """The text models' values as Panel set them (escaped HTML), and the numbers table's."""
    found = {role: model.text for role, model in models.items()}
    # Shown only while "Show the numbers" is on: what Panel's HTML pane then holds.
    found["numbers"] = html.escape(numbers_html(figure))
    return found


def sliders_of(figure) -> list[dict]:
    """How the page's widgets stand for the figure's sliders."""
    found = []
    for name in figure.sliders():
        parameter = figure.param[name]
        entry = {"name": name, "label": parameter.label, "implied": name in figure.implied}
        if isinstance(parameter, param.Selector):
            # Panel labels a named choice by its name (param keeps the names apart).
            names = {value: label for label, value in (parameter.names or {}).items()}
            labels = [names.get(v, str(v)) for v in slider_values(figure, name)]
            entry |= {"kind": "buttons", "labels": labels, "options": slider_values(figure, name)}
        else:
            entry |= {"kind": "slider", "bounds": list(parameter.bounds)}
        found.append(entry)
    return found


def figure_frames(cls) -> tuple[dict, bytes]:
    """(the JSON index, the binary columns) of one figure's frames."""
    states, aliases, moves = reachable(cls)
    figure = cls()
    doc = Document()
    doc.add_root(pn.panel(figure).get_root(doc))
    models = text_models(figure, doc)
    pool = Pool()
    frames, index, parts, by_part = [], {}, [], {}
    for key, values in states.items():
        set_state(figure, values)
        encoded = json.dumps(pool.encode(figure.frame()), sort_keys=True)
        if encoded not in by_part:
            by_part[encoded] = len(parts)
            parts.append(json.loads(encoded))
        bounds = figure.moved_bounds()
        index[key] = len(frames)
        frames.append(
            {
                "values": values,
                "bounds": bounds,
                "models": by_part[encoded],
                # Roles in a fixed order: the string pool, so the file, is the same every build.
                "text": {role: pool.string(t) for role, t in sorted(texts(figure, models).items())},
            }
        )
    for asked, key in aliases.items():
        index.setdefault(asked, index[key])
    opening = cls()
    return (
        {
            "figure": cls.figure_id,
            "prefix": model_name(opening, ""),
            "sliders": sliders_of(opening),
            "opening": key_of(opening, opening.values()),
            "states": index,
            "moves": moves,
            "frames": frames,
            "parts": parts,
            "strings": pool.strings,
            "columns": pool.columns,
        },
        bytes(pool.blob),
    )


def write_frames(out: Path, figure_ids, fresh: dict[str, dict]) -> dict:
    """frames/<id>.json and .bin for each figure; {id: {json, bin: {path, sha256, bytes}}}.

    Frames computed now go into ``fresh`` ({key: files}): the build keeps them
    (``pagecache.store_frames``) only once its checks have passed.
    """
    from posviz.figures import FIGURES

    folder = out / FRAME_DIR
    folder.mkdir(parents=True, exist_ok=True)
    listed: dict = {}
    from posviz.export import pagecache

    keys = pagecache.frame_keys(figure_ids)
    for figure_id in sorted(figure_ids):
        # The same inputs give the same bytes, so frames computed by an earlier build
        # (kept under a content-hash key of the figure's module and posviz) are reused
        # when they are the bytes it kept (a damaged entry is computed again).
        files = pagecache.cached_frames(keys[figure_id])
        if files is None:
            index, blob = figure_frames(FIGURES[figure_id])
            text = json.dumps(index, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            # Compressed on disk (the page unpacks them with DecompressionStream); mtime 0.
            files = {"json": gzip.compress(text, mtime=0), "bin": gzip.compress(blob, mtime=0)}
            fresh[keys[figure_id]] = files
        listed[str(figure_id)] = {}
        for kind, data in files.items():
            path = f"{FRAME_DIR}{figure_id}.{kind}.gz"
            (out / path).write_bytes(data)
            listed[str(figure_id)][kind] = {
                "path": path,
                "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data),
            }
    total = sum(f["bytes"] for files in listed.values() for f in files.values())
    if total > BUDGET:
        raise FrameError(f"the frames weigh {total:,} bytes, over the budget of {BUDGET:,}")
    return listed


def page_config(route, listed: dict) -> str:
    """The page's frames settings, as the JSON of a data script element.

    Each figure's files, and its sliders: without its frames (missing, corrupt)
    the page still knows which widget is which, so a value the reader sets goes
    into the URL and to Python.
    """
    from posviz.figures import FIGURES

    config = {"single": route.kind == "figure", "figures": {}}
    # The deep-link grammar's view of the page (deeplinks.page_spec, read by links.js).
    shown = [FIGURES[fid]() for fid in route.figures if str(fid) in listed]
    config["links"] = deeplinks.page_spec(shown, config["single"])
    for fid in route.figures:
        if str(fid) in listed:
            figure = FIGURES[fid]()
            config["figures"][str(fid)] = {
                **listed[str(fid)],
                "prefix": model_name(figure, ""),
                "sliders": sliders_of(figure),
                # What the worker's numpy tier needs to compute a frame (runtime/compute.py).
                "module": FIGURES[fid].__module__,
                "link": href(figure_route(fid)),
                "title": FIGURES[fid].title,
            }
    text = json.dumps(config, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="posviz-frames">{text}</script>'
