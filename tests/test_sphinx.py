"""posviz.sphinx: the directive, the copied site, and a real Sphinx project in Chromium."""

import pytest

sphinx = pytest.importorskip("sphinx")

from tests.support.imports import imported  # noqa: E402  (after the importorskip)
from tests.support.sphinx_project import (  # noqa: E402  (after the importorskip)
    INDEX,
    NESTED,
    SECOND,
    build_docs,
    fake_site,
    iframe_targets,
)

# real Sphinx builds: the full run's, not ./dev test --fast
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("builder", sorted(NESTED))
def test_every_iframe_points_at_its_figure_from_any_builder(tmp_path, builder):
    site = fake_site(tmp_path / "site")
    out = tmp_path / "out"
    pages = {"index.rst": INDEX, "more/second.rst": SECOND}
    code, warnings = build_docs(tmp_path / "src", out, site, pages, builder)
    assert code == 0, warnings
    targets = iframe_targets(out, NESTED[builder])
    nested = [src for src in targets if "figure-7256.html?k=12&amp;m=20" in src]
    assert len(nested) == 1, targets
    for src, target in targets.items():
        # a browser would clamp "../" at the site's root; a path must not need it
        assert target.startswith("_posviz/"), f"{builder}: {NESTED[builder]}: {src} -> {target}"
        assert (out / target).is_file(), (src, target)


def test_directive_writes_a_lazy_titled_iframe_with_the_deep_link(tmp_path):
    site = fake_site(tmp_path / "site")
    code, warnings = build_docs(
        tmp_path / "src", tmp_path / "out", site, {"index.rst": INDEX, "more/second.rst": SECOND}
    )
    assert code == 0, warnings
    index = (tmp_path / "out" / "index.html").read_text("utf-8")
    assert (
        '<iframe src="_posviz/figure-710.html?pos=24" title="Clock hands at different speeds" '
        'loading="lazy"'
    ) in index
    assert "Drag pos: the right curve stays put." in index
    assert 'data-posviz-min-height="300"' in index and "height:300px" in index
    second = (tmp_path / "out" / "more" / "second.html").read_text("utf-8")
    assert 'src="../_posviz/figure-7256.html?k=12&amp;m=20"' in second
    assert "posviz-embed.js" in index
    assert (tmp_path / "out" / "_static" / "posviz-embed.js").is_file()
    assert (tmp_path / "out" / "_posviz" / "figure-710.html").read_text() == "<p>figure</p>"


@pytest.mark.parametrize(
    "directive, message",
    [
        (".. posviz-figure:: 999", "posviz-figure: there is no figure 999; the figures are"),
        (".. posviz-figure:: abc", "posviz-figure: 'abc' is not a figure id (a number)"),
        (
            ".. posviz-figure:: " + "7" * 5000,
            "posviz-figure: there is no figure 77777777777777777777… (5000 characters); "
            "the figures are",
        ),
        (
            ".. posviz-figure:: 710\n   :pos: 500",
            "posviz-figure 710: :pos: 500: must be at most 100, not 500. Its bounds are 0 to 100.",
        ),
        (
            ".. posviz-figure:: 710\n   :pos: twelve",
            "posviz-figure 710: :pos: twelve: must be a whole number from 0 to 100",
        ),
        (
            ".. posviz-figure:: 710\n   :d_model: 17",
            "posviz-figure 710: :d_model: 17: must be even, not 17.",
        ),
        (
            ".. posviz-figure:: 710\n   :speed: 3",
            "posviz-figure 710: figure 710 has no slider 'speed'; its sliders are pos, d_model",
        ),
        (
            ".. posviz-figure:: 710\n   :height: 50000",
            "posviz-figure 710: :height: 50000: must be a whole number of px from 1 to 20000",
        ),
        (
            ".. posviz-figure:: 710\n   :height: 0",
            "posviz-figure 710: :height: 0: must be a whole number of px from 1 to 20000",
        ),
        (
            ".. posviz-figure:: 710\n   :height: tall",
            "posviz-figure 710: :height: tall: must be a whole number of px from 1 to 20000",
        ),
    ],
)
def test_a_bad_directive_fails_the_build_naming_file_and_line(tmp_path, directive, message):
    site = fake_site(tmp_path / "site")
    page = f"Title\n=====\n\n{directive}\n"
    # Without -W: an error fails the build on its own (with -W, every warning does).
    code, warnings = build_docs(
        tmp_path / "src", tmp_path / "out", site, {"index.rst": page}, strict=False
    )
    assert code != 0, warnings
    assert "index.rst:4" in warnings, warnings
    assert message in warnings, warnings
    assert "<iframe" not in (tmp_path / "out" / "index.html").read_text("utf-8")
    assert (tmp_path / "src" / "index.rst").read_text("utf-8") == page  # source untouched


def test_a_bad_directive_still_fails_an_incremental_build_that_does_not_reread_it(tmp_path):
    site = fake_site(tmp_path / "site")
    pages = {"index.rst": "T\n=\n\n.. toctree::\n\n   good\n\n.. posviz-figure:: 999\n"}
    pages["good.rst"] = "Good\n====\n\n.. posviz-figure:: 710\n"
    first, _ = build_docs(tmp_path / "src", tmp_path / "out", site, pages, strict=False)
    (tmp_path / "src" / "good.rst").write_text("Good\n====\n\nEdited.\n", "utf-8")
    again, warnings = build_docs(tmp_path / "src", tmp_path / "out", site, {}, strict=False)
    assert (first, again) == (1, 1)
    assert "index.rst:8: posviz-figure: there is no figure 999" in warnings, warnings


def test_posviz_site_that_is_not_a_site_is_named(tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    code, warnings = build_docs(
        tmp_path / "src", tmp_path / "out", empty, {"index.rst": "T\n=\n\n.. posviz-figure:: 710\n"}
    )
    assert code != 0
    assert f"{empty} is not a posviz site (no site.json)" in warnings
    assert list(empty.iterdir()) == []


def test_the_module_imports_neither_sphinx_nor_panel():
    assert imported("import posviz.sphinx", ("sphinx", "docutils", "panel"))[0] == []


@pytest.fixture
def docs_without_site(tmp_path):
    """A project that sets no posviz_site, so the extension builds the site itself."""
    from tests.support.sphinx_project import CONF

    src = tmp_path / "src"
    (src / "more").mkdir(parents=True)
    (src / "conf.py").write_text(CONF.replace("posviz_site = {site!r}\n", ""), "utf-8")
    (src / "index.rst").write_text(INDEX, "utf-8")
    (src / "more" / "second.rst").write_text(SECOND, "utf-8")
    return src


@pytest.mark.parametrize("mode", ["-b", "-M"])
def test_the_site_of_the_docs_figures_is_written_once_into_the_output(
    docs_without_site, tmp_path, monkeypatch, mode
):
    from sphinx.cmd.build import main

    from posviz.export import command

    built = []

    def fake_build(out, figures):  # the real build is test_embed_site's; here: where and what
        built.append((out, figures))
        fake_site(out)
        return 0

    monkeypatch.setattr(command, "build", fake_build)
    out = tmp_path / "out"
    assert main([mode, "html", str(docs_without_site), str(out), "-q"]) == 0
    html = out / "html" if mode == "-M" else out
    assert built == [(html / "_posviz", [96, 710, 7256])]
    assert [p.parent for p in out.rglob("site.json")] == [html / "_posviz"]


def test_a_real_docs_build_holds_one_site_of_its_figures(docs_without_site, tmp_path):
    from sphinx.cmd.build import main

    (docs_without_site / "more" / "second.rst").write_text("Second\n======\n", "utf-8")
    (docs_without_site / "index.rst").write_text(
        "Docs\n====\n\n.. toctree::\n\n   more/second\n\n.. posviz-figure:: 710\n   :pos: 24\n"
    )
    out = tmp_path / "out"
    assert main(["-b", "html", str(docs_without_site), str(out), "-q"]) == 0
    assert len(list(out.rglob("pyodide.asm.wasm"))) == 1
    assert sorted(p.name for p in (out / "_posviz").glob("*.html")) == ["figure-710.html"]
