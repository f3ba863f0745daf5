"""What every page repeats is written once: a stylesheet text once per document."""

import json

import panel as pn
from bokeh.document import Document
from bokeh.embed.util import standalone_docs_json

from posviz.compose.style import TEXT_CSS, share_stylesheets


def test_each_stylesheet_text_is_written_once_per_document():
    doc = Document()
    panes = [pn.pane.HTML(f"<p>{i}</p>", stylesheets=[TEXT_CSS]) for i in range(5)]
    doc.add_root(pn.Column(*panes).get_root(doc))
    written = json.dumps(TEXT_CSS)[1:-1]
    before = json.dumps(standalone_docs_json([doc])).count(written)
    assert before >= 5  # Panel writes it out for every pane
    assert share_stylesheets(doc) >= 5
    assert json.dumps(standalone_docs_json([doc])).count(written) == 1
    # Every pane still carries it: one model, referred to by id.
    ids = {
        sheet.id
        for model in doc.models
        for sheet in getattr(model, "stylesheets", []) or []
        if getattr(sheet, "css", None) == TEXT_CSS
    }
    assert len(ids) == 1
