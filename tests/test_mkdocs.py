"""posviz.mkdocs: the figure line, the copied site and the shared script, in `mkdocs build`."""

from importlib import resources

import pytest

from posviz.embed import MAX_HEIGHT
from posviz.mkdocs import EmbedError, expand
from tests.support.imports import imported
from tests.support.mkdocs_project import PAGES, build_docs, fake_site

# real MkDocs builds: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow


pytest.importorskip("mkdocs")


def test_mkdocs_build_writes_a_lazy_titled_iframe_with_the_deep_link(tmp_path):
    site = fake_site(tmp_path / "site")
    code, printed = build_docs(tmp_path, site, PAGES)
    assert code == 0, printed
    out = tmp_path / "out"
    index = (out / "index.html").read_text("utf-8")
    assert (
        '<iframe src="_posviz/figure-710.html?pos=24" title="Clock hands at different speeds" '
        'loading="lazy"'
    ) in index
    assert "Drag pos: the right curve stays put." in index
    assert 'data-posviz-min-height="300"' in index and "height:300px" in index
    assert 'data-posviz-min-height="560"' in index  # the default least height
    # The fenced example is shown as written, not embedded.
    assert "::: posviz-figure 999 pos=1" in index and "figure-999" not in index
    # Directory URLs: more/second.md is more/second/index.html, two folders down.
    second = (out / "more" / "second" / "index.html").read_text("utf-8")
    assert 'src="../../_posviz/figure-7256.html?k=12&amp;m=20"' in second
    assert '<script src="../../assets/posviz-embed.js"' in second
    assert '<script src="assets/posviz-embed.js"' in index
    # One sizing script for Sphinx and MkDocs: the package's embed.js, its bound filled in.
    shipped = resources.files("posviz").joinpath("embed.js").read_text("utf-8")
    written = (out / "assets" / "posviz-embed.js").read_text("utf-8")
    assert written == shipped.replace("__MAX_HEIGHT__", str(MAX_HEIGHT))
    assert "MAX_HEIGHT" not in written and f", {MAX_HEIGHT})" in written
    assert (out / "_posviz" / "figure-710.html").read_text() == "<p>figure</p>"


def test_a_bad_line_fails_mkdocs_build_naming_file_and_line(tmp_path):
    # Every message is checked on expand() below; this is the real build failing on one.
    line = "::: posviz-figure 710 pos=500"
    site = fake_site(tmp_path / "site")
    page = f"---\ntitle: T\n---\n# T\n\nText.\n\n{line}\n"  # line 8, under front matter
    code, printed = build_docs(tmp_path, site, {"index.md": page, "more/second.md": "# S\n"})
    assert code != 0
    message = "docs/index.md:8: posviz-figure 710: pos=500: must be at most 100, not 500."
    assert message in printed, printed
    assert not (tmp_path / "out" / "index.html").exists()
    assert (tmp_path / "docs" / "index.md").read_text("utf-8") == page  # source untouched


def test_a_site_that_is_not_a_site_is_named(tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    code, printed = build_docs(tmp_path, empty, {"index.md": "# T\n"})
    assert code != 0
    assert f"mkdocs.yml: plugins: posviz: site: '{empty}': {empty} is not a posviz site" in printed
    assert "(no site.json)" in printed
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize(
    "line, message",
    [
        (
            "::: posviz-figure",
            "posviz-figure needs a figure id, as in '::: posviz-figure 710 pos=24'",
        ),
        ("::: posviz-figure abc", "posviz-figure 'abc' is not a figure id (a number)"),
        ("::: posviz-figure 999", "posviz-figure 999: there is no figure 999; the figures are"),
        (
            "::: posviz-figure 710 pos=500",
            "posviz-figure 710: pos=500: must be at most 100, not 500. Its bounds are 0 to 100.",
        ),
        (
            "::: posviz-figure 710 pos=twelve",
            "posviz-figure 710: pos=twelve: must be a whole number from 0 to 100",
        ),
        (
            "::: posviz-figure 710 d_model=17",
            "posviz-figure 710: d_model=17: must be even, not 17.",
        ),
        (
            "::: posviz-figure 710 d_model=24",
            "posviz-figure 710: d_model=24: must be in steps of 16 from 16 to 1024",
        ),
        (
            "::: posviz-figure 710 speed=3",
            "posviz-figure 710: figure 710 has no slider 'speed'; its sliders are pos, d_model",
        ),
        ("::: posviz-figure 710 pos", "posviz-figure 'pos' is not name=value (for example pos=24)"),
        ("::: posviz-figure 710 pos=1 pos=2", "posviz-figure pos= is given twice"),
        (
            "::: posviz-figure 710 height=0",
            "posviz-figure 710: height=0: must be a whole number of pixels above 0",
        ),
        ('::: posviz-figure 710 caption="open', "posviz-figure No closing quotation in"),
    ],
)
def test_each_bad_line_is_named_with_file_line_and_reason(line, message):
    markdown = f"# Title\n\n{line}\n"
    with pytest.raises(EmbedError) as raised:
        expand(markdown, "docs/page.md", 5, "_posviz")
    assert str(raised.value).startswith(f"docs/page.md:7: {message}"), str(raised.value)


def test_a_line_becomes_a_raw_html_block_and_fences_are_left_alone():
    markdown = (
        "Text\n::: posviz-figure 710 d_model=256 title='Hands, wide'\n"
        "~~~~\n::: posviz-figure 1\n```\nstill fenced\n~~~~\n"
        ":::  posviz-figure 1 is prose, not a figure line\n"
    )
    lines = expand(markdown, "p.md", 1, "../_posviz").split("\n")
    assert lines[0] == "Text" and lines[1] == ""  # a blank line opens the HTML block
    assert lines[2].startswith('<figure class="posviz-embed" style="width:100%"><iframe ')
    assert 'src="../_posviz/figure-710.html?d_model=256" title="Hands, wide"' in lines[2]
    assert lines[3] == ""
    assert lines[4:] == markdown.split("\n")[2:]


def test_the_module_imports_neither_mkdocs_nor_panel():
    assert imported("import posviz.mkdocs", ("mkdocs", "markdown", "panel"))[0] == []


def test_mkdocs_finds_the_plugin_by_its_entry_point():
    from mkdocs.plugins import get_plugins

    plugin = get_plugins()["posviz"].load()
    assert plugin.__name__ == "PosvizPlugin" and plugin.__module__ == "posviz.mkdocs"


def test_without_a_site_the_plugin_builds_one_once_and_removes_it_at_shutdown(
    tmp_path, monkeypatch, caplog
):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    from posviz.export import command

    built, codes = [], iter([0, 1])

    def fake_build(out, figures):  # what matters: where, how often, and which figures
        assert figures == [710]
        built.append(out)
        fake_site(out)
        return next(codes)

    monkeypatch.setattr(command, "build", fake_build)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("::: posviz-figure 710\n", "utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins: [posviz]\n", "utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "out"))
    config.plugins.on_startup(command="serve", dirty=False)
    for _ in range(2):  # `mkdocs serve` rebuilds on every edit: one posviz build for all
        build(config)
        assert (tmp_path / "out" / "_posviz" / "figure-710.html").is_file()
    assert len(built) == 1
    config.plugins.on_shutdown()
    assert not built[0].parent.exists()

    # A posviz build that fails stops the docs build, naming where it built.
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "out"))
    config.plugins.on_startup(command="build", dirty=False)
    with pytest.raises(Abort):
        build(config)
    assert f"posviz build into {built[1]} failed; see its output above" in caplog.text
    assert len(built) == 2 and not built[1].parent.exists()
