"""The offline scan sees what a page really renders, including the text inside the
pre-rendered Bokeh document (a JSON script block, its markup HTML-escaped)."""

import html
import json
from pathlib import Path

import pytest

from posviz.build.scan import scan, scan_text

OUTSIDE_IMG = '<p>Inline <img src="https://evil.example/x.png"> here.</p>'


def page_with_document(markup: str, escapes: int) -> str:
    """An exported page whose Bokeh document holds ``markup``, HTML-escaped ``escapes`` times."""
    for _ in range(escapes):
        markup = html.escape(markup)
    document = {"root": {"type": "object", "name": "Markdown", "attributes": {"text": markup}}}
    return (
        "<!doctype html>\n<html><head>\n<title>p</title>\n</head><body>\n"
        '<script type="application/json" id="p1031">\n'
        f"      {json.dumps({'doc': document})}\n"
        "</script>\n</body></html>\n"
    )


@pytest.mark.parametrize("escapes", [0, 1, 2])
def test_an_outside_image_inside_the_embedded_document_is_found(escapes):
    text = page_with_document(OUTSIDE_IMG, escapes)
    assert "<img" not in text or escapes == 0
    assert scan_text(text, ".html") == [(5, "https://evil.example/x.png")]


def test_an_outside_image_in_a_json_block_that_is_not_valid_json_is_found():
    text = page_with_document(OUTSIDE_IMG, 2).replace('{"doc"', '{"doc" oops')
    assert scan_text(text, ".html") == [(5, "https://evil.example/x.png")]


def test_json_escapes_do_not_hide_the_markup():
    # Bokeh may write < as \u003c inside JSON.
    text = page_with_document(OUTSIDE_IMG, 0).replace("<img", "\\u003cimg")
    assert "<img" not in text
    assert scan_text(text, ".html") == [(5, "https://evil.example/x.png")]


def test_text_that_only_mentions_a_tag_is_not_a_fetch():
    # The author wrote &lt;img ...&gt; as text: Markdown keeps it escaped, and the page
    # shows the characters; it is escaped three times in the document.
    text = page_with_document('<p>&lt;img src="https://evil.example/x.png"&gt;</p>', 2)
    assert scan_text(text, ".html") == []


def test_links_inside_the_document_are_not_fetches():
    text = page_with_document('<p><a href="https://arxiv.org/abs/1706.03762">paper</a></p>', 2)
    assert scan_text(text, ".html") == []


def test_scan_of_a_folder_reports_the_file_and_line_of_the_document(tmp_path: Path):
    (tmp_path / "page-x.html").write_text(page_with_document(OUTSIDE_IMG, 2), "utf-8")
    [finding] = scan(tmp_path)
    assert str(finding) == f"{tmp_path / 'page-x.html'}:5: would fetch https://evil.example/x.png"
