"""The offline scan sees what a page really renders, including the text inside the
pre-rendered Bokeh document (a JSON script block, its markup HTML-escaped)."""

import html
import json
from pathlib import Path

import pytest

from posviz.export.scan import scan, scan_text

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


@pytest.mark.slow  # a pre-render
def test_a_really_rendered_page_with_an_outside_image_fails_the_scan(tmp_path: Path):
    """Content that `posviz check` (and the view itself) would refuse, rendered anyway:
    the image a Markdown image makes is found by the scan, and raw HTML is shown as
    text, never as a tag."""
    import os
    import shutil
    import subprocess
    import sys

    content = tmp_path / "content"
    shutil.copytree(Path(__file__).resolve().parents[1] / "content", content)
    page = content / "pages/query-key-value.md"
    text = page.read_text("utf-8")
    hostile = (
        "An image ![x](https://evil.example/markdown.png) and raw "
        '<img src="https://evil.example/raw.png"> markup.\n\n'
    )
    page.write_text(text.replace("## 2.", hostile + "## 2.", 1), "utf-8")
    out = tmp_path / "out"
    out.mkdir()
    env = {
        **os.environ,
        "POSVIZ_CONTENT": str(content),
        "POSVIZ_EXPORT": "1",
        "PYTHONHASHSEED": "0",
        "PANEL_CDN_ROOT": "./",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src"),
    }
    # As if the content check had been skipped: the view renders what the file says.
    code = (
        "import sys; from pathlib import Path; import posviz.content.markdown as c; "
        "c.CHECK_MARKUP = False; from posviz.export.prerender import main; "
        "main(Path(sys.argv[1]), sys.argv[2:])"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(out), "page-query-key-value"],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    rendered = (out / "page-query-key-value.html").read_text("utf-8")
    # The page's text is HTML now (compose/page.py): the Markdown image is a real
    # <img>, which the scan finds; the raw tag stays text.
    body = rendered.split("<body")[1]
    assert '<img src="https://evil.example/markdown.png"' in body
    assert '<img src="https://evil.example/raw.png"' not in body
    assert "&lt;img src=&quot;" in body  # the raw tag, escaped: text
    urls = [finding.url for finding in scan(out)]
    assert "https://evil.example/markdown.png" in urls
    assert "https://evil.example/raw.png" not in urls


def test_a_canonical_link_is_not_a_fetch_but_a_stylesheet_is():
    text = (
        '<link rel="canonical" href="https://example.org/posviz/a.html">\n'
        '<meta property="og:url" content="https://example.org/posviz/a.html">\n'
        '<link rel="stylesheet" href="https://example.org/x.css">\n'
    )
    assert scan_text(text, ".html") == [(3, "https://example.org/x.css")]


def test_a_remembered_scan_gives_the_same_findings_and_rescans_changed_bytes(
    tmp_path: Path, monkeypatch
):
    from posviz.export import pagecache
    from posviz.export import scan as scanner

    monkeypatch.setenv(pagecache.CACHE_ENV, str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text(f"<html><body>{OUTSIDE_IMG}</body></html>")
    (site / "b.js").write_text("const x = 1;\n")
    first = scan(site, remember=pagecache.remembered_scan)
    assert [f.url for f in first] == ["https://evil.example/x.png"]
    assert scan(site) == first  # the same findings as an uncached scan

    scanned = []

    def counting(data, suffix):
        scanned.append(suffix)
        return scanner.scan_text(data.decode("utf-8"), suffix)

    monkeypatch.setattr(scanner, "scan_bytes", counting)
    assert scan(site, remember=pagecache.remembered_scan) == first
    assert scanned == []  # both files came from the cache
    # New bytes are scanned again: a cached clean result hides nothing added later.
    (site / "b.js").write_text('importScripts("https://cdn.jsdelivr.net/x.js");\n')
    again = scan(site, remember=pagecache.remembered_scan)
    assert scanned == [".js"]
    assert sorted(f.url for f in again) == [
        "https://cdn.jsdelivr.net/x.js",
        "https://evil.example/x.png",
    ]
