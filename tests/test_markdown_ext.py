"""posviz.markdown_ext: the figure line in Zensical, in MkDocs without the plugin, in Markdown."""

import pytest

from posviz.embed import MAX_HEIGHT
from posviz.markdown_ext import EmbedError, relative_url
from tests.support.imports import imported
from tests.support.mkdocs_project import fake_site
from tests.support.zensical_project import PAGES, build, write_project

# real MkDocs and Zensical builds: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow

pytest.importorskip("zensical")
pytest.importorskip("mkdocs")

# The sizing script, inline: the listener embed.js adds, its bound filled in.
SCRIPT_MARK = 'document.querySelectorAll("iframe[data-posviz-embed]")'


def _index_and_second(out):
    index = (out / "index.html").read_text("utf-8")
    second = (out / "more" / "second" / "index.html").read_text("utf-8")
    return index, second


@pytest.mark.parametrize("tool", ["zensical", "mkdocs"])
def test_a_site_built_with_the_extension_alone_embeds_live_figures(tmp_path, tool):
    write_project(tmp_path, fake_site(tmp_path / "posviz"), PAGES, tool)
    code, printed = build(tmp_path, tool)
    assert code == 0, printed
    index, second = _index_and_second(tmp_path / "out")
    assert (
        '<iframe src="_posviz/figure-710.html?pos=24" title="Clock hands at different speeds" '
        'loading="lazy"'
    ) in index
    assert "Drag pos: the right curve stays put." in index
    # Relative to the page, two folders down (directory URLs): any sub-path serves it.
    assert 'src="../../_posviz/figure-710.html?pos=30"' in second
    assert 'data-posviz-min-height="300"' in second
    # The sizing script is in each page that embeds a figure, once.
    for page in (index, second):
        assert page.count(SCRIPT_MARK) == 1 and f", {MAX_HEIGHT})" in page
    # The fenced example is shown as written, not embedded.
    assert "::: posviz-figure 999 pos=1" in index and "figure-999" not in index
    # The docs tool copied the site the author put in docs/_posviz.
    assert (tmp_path / "out" / "_posviz" / "figure-710.html").read_text() == "<p>figure</p>"


@pytest.mark.parametrize("tool", ["zensical", "mkdocs"])
def test_a_wrong_slider_value_fails_the_build_in_one_line_with_file_and_line(tmp_path, tool):
    page = PAGES["index.md"].replace("pos=24", "pos=500")  # line 8, under front matter
    write_project(tmp_path, fake_site(tmp_path / "posviz"), {**PAGES, "index.md": page}, tool)
    code, printed = build(tmp_path, tool)
    assert code != 0
    message = "docs/index.md:8: posviz-figure 710: pos=500: must be at most 100, not 500."
    assert message in printed, printed
    assert "Traceback" not in printed, printed
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("tool", ["zensical", "mkdocs"])
def test_a_missing_site_or_figure_is_named_with_the_command_that_makes_it(tmp_path, tool):
    write_project(tmp_path, None, PAGES, tool)
    code, printed = build(tmp_path, tool)
    folder = tmp_path / "docs" / "_posviz"
    assert code != 0 and "Traceback" not in printed, printed
    assert f"{folder} is not a posviz site (no site.json)" in printed, printed
    assert f"`posviz build --figures ID,ID --out {folder}`" in printed

    site = fake_site(folder)
    (site / "figure-710.html").unlink()  # a site built for other figures
    code, printed = build(tmp_path, tool)
    assert code != 0 and "Traceback" not in printed, printed
    message = f"docs/index.md:8: posviz-figure 710: the posviz site {folder} has no figure-710.html"
    assert message in printed, printed
    assert f"`posviz build --figures 710,... --out {folder}`" in printed


def test_markdown_finds_the_extension_by_its_entry_point_name():
    from importlib.metadata import entry_points

    make = entry_points(group="markdown.extensions")["posviz"].load()
    assert make.__module__ == "posviz.markdown_ext"
    assert make(site="figures").getConfig("site") == "figures"


def test_plain_markdown_names_the_line_and_the_page_start():
    import markdown

    html = markdown.markdown("# Hands\n\n::: posviz-figure 710 pos=24\n", extensions=["posviz"])
    assert '<iframe src="_posviz/figure-710.html?pos=24"' in html
    assert html.count(SCRIPT_MARK) == 1
    site = {"posviz": {"site": "https://example.org/figures"}}
    html = markdown.markdown("::: posviz-figure 710", extensions=["posviz"], extension_configs=site)
    assert '<iframe src="https://example.org/figures/figure-710.html"' in html
    # A page with no figure line is left as it was: no script.
    assert "<script" not in markdown.markdown("# Hands\n", extensions=["posviz"])
    with pytest.raises(EmbedError) as raised:
        markdown.markdown("# Hands\n\nText.\n::: posviz-figure 710 pos=-3\n", extensions=["posviz"])
    assert str(raised.value).startswith(
        "line 4 of the page that starts '# Hands': posviz-figure 710: pos=-3: "
    ), str(raised.value)


@pytest.mark.parametrize(
    "page_url, link",
    [
        ("", "_posviz"),  # the root page (directory URLs)
        ("more/second/", "../../_posviz"),  # MkDocs, directory URLs
        ("more/second.html", "../_posviz"),  # MkDocs, file URLs
        ("more/second.md", "../_posviz"),  # Zensical: from the source file; it rewrites
        ("index.html", "_posviz"),
    ],
)
def test_links_start_from_the_page(page_url, link):
    assert relative_url("_posviz", page_url) == link
    assert relative_url("./_posviz/", page_url) == link
    assert relative_url("/figures", page_url) == "/figures"


def test_the_module_imports_neither_markdown_nor_panel():
    modules = ("markdown", "mkdocs", "zensical", "panel")
    assert imported("import posviz.markdown_ext", modules)[0] == []
