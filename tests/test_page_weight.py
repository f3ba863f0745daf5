"""What every page repeats is written once: each stylesheet text once per pre-rendered page."""

import json

import panel as pn
from bokeh.document import Document
from bokeh.embed import file_html

from posviz.export.adapter import DOCS_JSON, share_stylesheets
from posviz.styles import TEXT_CSS


def written(text: str, css: str) -> int:
    return text.count(json.dumps(css)[1:-1])


def test_each_stylesheet_text_is_written_once_and_referred_to_by_id():
    doc = Document()
    panes = [pn.pane.HTML(f"<p>{i}</p>", stylesheets=[TEXT_CSS]) for i in range(5)]
    doc.add_root(pn.Column(*panes).get_root(doc))
    html = file_html(doc, title="t")
    assert written(html, TEXT_CSS) >= 5  # Panel writes it out for every pane
    shared = share_stylesheets(html, "t.html")
    assert written(shared, TEXT_CSS) == 1
    docs = json.loads(DOCS_JSON.search(shared).group(2))
    (defined,) = [
        s
        for s in _sheets(docs)
        if isinstance(s, dict) and s.get("attributes", {}).get("css") == TEXT_CSS
    ]
    refs = [s for s in _sheets(docs) if s == {"id": defined["id"]}]
    assert defined["name"] == "InlineStyleSheet" and len(refs) >= 4  # every other pane
    assert "</" not in DOCS_JSON.search(shared).group(2)  # still safe inside <script>


def _sheets(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "stylesheets":
                yield from item
            else:
                yield from _sheets(item)
    elif isinstance(value, list):
        for item in value:
            yield from _sheets(item)
