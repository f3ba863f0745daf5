"""The offline search: Pagefind's index (export/search.py) and the box in the page template."""

import hashlib
import os
from pathlib import Path

import pytest

from posviz.compose import page, parts
from posviz.export import search

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><header>crumbs words</header>
<article data-pagefind-body><h1>{title}</h1><h2 id="section-1">1. One</h2><p>{text}</p>
<div data-pagefind-ignore="all">controls</div></article></body></html>
"""


def write_site(folder: Path, pages: dict[str, tuple[str, str]], reverse: bool = False) -> Path:
    folder.mkdir(parents=True)
    for name, (title, text) in sorted(pages.items(), reverse=reverse):
        (folder / f"{name}.html").write_text(PAGE.format(title=title, text=text), "utf-8")
    (folder / "static").mkdir()
    (folder / "static" / "bundle.html").write_text(PAGE.format(title="bundled", text="x"))
    return folder


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


PAGES = {
    "index": ("Home", "Clock hands turn at many speeds."),
    "page-a": ("Windows", "A window of pixels around each query."),
    "page-b": ("Axes", "Rows first, then columns."),
}


def test_the_index_is_the_same_bytes_for_the_same_pages_written_in_any_order(tmp_path):
    first = write_site(tmp_path / "one", PAGES)
    second = write_site(tmp_path / "two", PAGES, reverse=True)
    os.utime(second / "page-a.html", (1, 1))  # an older file: the index must not care
    written = search.index(first)
    search.index(second)
    assert digests(first / search.SEARCH_DIR) == digests(second / search.SEARCH_DIR)
    assert f"{search.SEARCH_DIR}pagefind.js" in written
    # posviz draws its own box: Pagefind's UIs are not shipped.
    assert not any(Path(name).name in search.UNUSED for name in written)
    # Nor the wasm of pages without a language: every page says lang="en".
    assert f"{search.SEARCH_DIR}wasm.en.pagefind" in written
    assert f"{search.SEARCH_DIR}wasm.unknown.pagefind" not in written
    entry = (first / search.SEARCH_DIR / "pagefind-entry.json").read_text("utf-8")
    assert '"page_count":3' in entry  # the pages at the top; nothing under static/


def test_a_changed_page_changes_the_index(tmp_path):
    first = write_site(tmp_path / "one", PAGES)
    second = write_site(tmp_path / "two", {**PAGES, "page-b": ("Axes", "Columns first.")})
    search.index(first)
    search.index(second)
    assert digests(first / search.SEARCH_DIR) != digests(second / search.SEARCH_DIR)


def test_a_failing_pagefind_is_one_readable_error(tmp_path, monkeypatch):
    monkeypatch.setattr(search.sys, "executable", str(tmp_path / "no-python"))
    with pytest.raises(search.SearchError, match="could not run Pagefind"):
        search.index(write_site(tmp_path / "site", PAGES))


def rendered(kind: str, exported: bool, monkeypatch) -> str:
    monkeypatch.setattr(page.routes, "exported", lambda: exported)
    monkeypatch.setattr(page.routes, "in_browser", lambda: False)
    shown = parts.View([parts.Prose("# A title\n\nSome text.")])
    template = page.page_template(shown, "page-x", kind, "T", "d")
    variables = template._render_variables["posviz"]
    return (
        page.environment().get_template("site.html").render(title="T", roots=[], posviz=variables)
    )


def test_export_pages_have_a_labelled_search_box_hidden_until_its_script_runs(monkeypatch):
    html = rendered("page", True, monkeypatch)
    assert '<form class="posviz-search" role="search" aria-label="Site" hidden>' in html
    assert '<label for="posviz-search-input">Search the site</label>' in html
    assert 'id="posviz-search-input" type="search"' in html
    assert f'<script src="{page.SEARCH_SCRIPT}" defer></script>' in html
    assert '<article class="posviz-article" data-pagefind-body>' in html


@pytest.mark.parametrize(("kind", "exported"), [("page", False), ("figure", True)])
def test_no_search_box_under_serve_nor_on_the_embeddable_figure_view(kind, exported, monkeypatch):
    html = rendered(kind, exported, monkeypatch)
    assert "posviz-search" not in html and "search.js" not in html
