"""A site of the figures docs embed (``posviz build --figures``); a build without content."""

import json
import re

import pytest

# A link to a page a site of figures alone does not ship.
ARTICLE_LINK = re.compile(r'href="((?:page|topic|tag)-[^"]*|index\.html|gallery\.html)"')


@pytest.fixture(scope="module")
def one_figure(tmp_path_factory):
    from posviz.export.command import build

    out = tmp_path_factory.mktemp("embed") / "site"
    assert build(out, figures=[710]) == 0
    return out


def test_a_site_of_one_figure_ships_its_page_and_the_runtime_alone(one_figure):
    assert sorted(p.name for p in one_figure.glob("*.html")) == ["figure-710.html"]
    manifest = json.loads((one_figure / "site.json").read_text("utf-8"))
    assert [page["path"] for page in manifest["pages"]] == ["figure-710.html"]
    assert list(manifest["frames"]) == ["710"]
    assert not (one_figure / "pagefind").exists()  # a figure page has no search box
    assert (one_figure / "pyodide" / "pyodide.asm.wasm").is_file()
    marker = json.loads((one_figure / ".posviz-build.json").read_text("utf-8"))
    assert marker["figures"] == [710]


def test_an_embedded_figure_links_to_no_page_the_site_lacks(one_figure):
    page = (one_figure / "figure-710.html").read_text("utf-8")
    assert ARTICLE_LINK.findall(page) == []
    assert "From " not in page


def test_a_figure_view_drops_its_from_line_only_in_a_site_of_figures(views_as_served, monkeypatch):
    from posviz.compose import views
    from posviz.urls import FIGURES_ONLY_ENV

    def texts():
        [island] = views.figure_view(710).islands()
        return island.heading

    assert "From <a href=" in texts()
    monkeypatch.setenv(FIGURES_ONLY_ENV, "1")
    assert "From " not in texts()


def test_an_unknown_figure_fails_the_build_in_one_line(tmp_path, capsys):
    from posviz.export.command import build

    assert build(tmp_path / "site", figures=[710, 999]) == 1
    err = capsys.readouterr().err
    assert err.startswith("posviz build: failed: --figures: there is no figure 999; the figures")
    assert err.count("\n") == 1
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("value", ["7x", "", ",", "1" * 12])
def test_figures_option_refuses_what_is_not_ids(value, capsys):
    from posviz import cli

    with pytest.raises(SystemExit) as stop:
        cli.parser().parse_args(["build", "--figures", value])
    assert stop.value.code == 2
    assert "argument --figures: " in capsys.readouterr().err


def test_figures_option_reads_ids_with_commas():
    from posviz import cli

    assert cli.parser().parse_args(["build", "--figures", "710, 96"]).figures == [710, 96]


@pytest.fixture
def no_content(monkeypatch):
    """posviz as installed without its content: no checkout, no POSVIZ_CONTENT."""
    from posviz.content import parse

    monkeypatch.delenv("POSVIZ_CONTENT", raising=False)
    monkeypatch.setattr(parse, "repository_root", lambda: None)


def test_without_content_check_says_what_to_set_in_one_line(no_content, capsys):
    from posviz import cli

    assert cli.main(["check"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "posviz: no content folder: " in err
    assert "set POSVIZ_CONTENT to the folder that holds pages/ and topics/" in err


def test_without_content_build_says_what_to_set_in_one_line(no_content, tmp_path, capsys):
    from posviz.export.command import build

    assert build(tmp_path / "site", figures=[710]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "set POSVIZ_CONTENT to the folder" in err
