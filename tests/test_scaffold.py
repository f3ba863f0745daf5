"""`posviz new figure | page`: written from the template files, valid as written, and
refused in one line for an id, slug, class name or file that exists already."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import posviz.figures
from posviz import content, scaffold
from posviz.cli import main
from posviz.drawing import plots
from posviz.figures import FIGURES, figure_ids
from posviz.figures.model import CAPTION_MIN_CHARS, Figure

CONTENT = Path(__file__).resolve().parents[1] / "content"
FREE_ID = max(figure_ids()) + 1
# A page slug and a figure class name nothing uses yet, whatever was added.
PAGES, FIGURE_FILES = CONTENT / "pages", Path(posviz.figures.__file__).parent
FREE_SLUG = next(
    f"scaffold-page-{n}" for n in range(100) if not (PAGES / f"scaffold-page-{n}.md").exists()
)
FREE_NAME = next(
    f"ScaffoldProbe{n}" for n in range(100) if not (FIGURE_FILES / f"scaffold_probe{n}.py").exists()
)


@pytest.fixture
def site_copy(tmp_path):
    root = tmp_path / "content"
    shutil.copytree(CONTENT, root)
    return root


def refused(capsys, *argv) -> str:
    """Run ``posviz new ...``; it must exit 1 with one line on stderr and nothing on stdout."""
    assert main(["new", *argv]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith("posviz new: refused: ")
    return err


# --- pages ---------------------------------------------------------------------------


def test_a_new_page_is_valid_and_carries_its_slug_and_title(site_copy, capsys):
    assert (
        main(
            ["new", "page", FREE_SLUG, "--title", "Clocks: on a grid"]
            + ["--content", str(site_copy)]
        )
        == 0
    )
    path = site_copy / "pages" / f"{FREE_SLUG}.md"
    assert f"wrote {path}" in capsys.readouterr().out
    page = content.load(site_copy).pages[FREE_SLUG]
    assert (page.title, page.kind, page.path) == ("Clocks: on a grid", "Read", path)
    assert page.sections and page.summary
    assert main(["check", "--content", str(site_copy)]) == 0


def test_a_new_page_refuses_an_existing_file(site_copy, capsys):
    before = (site_copy / "pages" / "query-key-value.md").read_bytes()
    err = refused(capsys, "page", "query-key-value", "--title", "X", "--content", str(site_copy))
    assert "query-key-value.md exists already" in err
    assert (site_copy / "pages" / "query-key-value.md").read_bytes() == before


def test_a_new_page_refuses_a_slug_another_file_holds(site_copy, capsys):
    pages = site_copy / "pages"
    (pages / "query-key-value.md").rename(pages / "qkv.md")  # the slug stays query-key-value
    err = refused(capsys, "page", "query-key-value", "--title", "X", "--content", str(site_copy))
    assert "slug query-key-value is taken by" in err and "qkv.md" in err
    assert not (pages / "query-key-value.md").exists()


@pytest.mark.parametrize("slug", ["Clocks", "two--hyphens", "under_score", "x-"])
def test_a_new_page_refuses_a_word_that_is_not_a_slug(site_copy, capsys, slug):
    assert "is not a slug" in refused(
        capsys, "page", slug, "--title", "X", "--content", str(site_copy)
    )


@pytest.mark.parametrize(
    "title", ['He said "hi": #1 & more', "[not a list]", "yes", "  spaced   out "]
)
def test_any_title_is_written_as_text_and_read_back_as_written(site_copy, title):
    path = scaffold.new_page(FREE_SLUG, title, site_copy)
    assert content.load(site_copy).pages[FREE_SLUG].title == " ".join(title.split())
    assert path.is_file()


# --- figures -------------------------------------------------------------------------


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"posviz_new_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_new_figure_module_is_the_template_with_its_name_id_and_title(tmp_path):
    path, oracle = scaffold.new_figure("SlopeLines", FREE_ID, folder=tmp_path)
    assert path == tmp_path / "slope_lines.py"
    assert oracle is None  # tmp_path is in no checkout: there is no tests/oracles
    text = path.read_text("utf-8")
    assert text.startswith(f'"""Figure {FREE_ID} — Slope lines."""\n')
    assert "NewFigure" not in text and "posviz new figure" not in text
    cls = load_module(path).SlopeLines
    assert issubclass(cls, Figure)
    assert (cls.figure_id, cls.title) == (FREE_ID, "Slope lines")
    assert len(cls.caption) >= CAPTION_MIN_CHARS
    figure = cls()
    assert plots(figure) and figure.readout() and figure.sliders()


def test_a_new_figure_module_passes_lint_as_written(tmp_path):
    (tmp_path / "oracles").mkdir()
    written = scaffold.new_figure(
        "SlopeLines", FREE_ID, "Lines through the origin", tmp_path, tmp_path / "oracles"
    )
    ruff = [sys.executable, "-m", "ruff"]
    root = Path(__file__).resolve().parents[1]
    checks = (["check", *map(str, written)], ["format", "--check", *map(str, written)])
    for command in checks:
        result = subprocess.run(ruff + command, capture_output=True, text=True, cwd=root)
        assert result.returncode == 0, result.stdout + result.stderr


def test_a_new_figures_oracle_checks_what_the_template_draws_and_fails_once_it_changes(
    tmp_path,
):
    (tmp_path / "oracles").mkdir()
    path, oracle = scaffold.new_figure(
        "SlopeLines2", FREE_ID, folder=tmp_path, oracles=tmp_path / "oracles"
    )
    assert oracle == tmp_path / "oracles" / "slope_lines2.py"
    assert oracle.read_text("utf-8").startswith(
        f'"""Figure {FREE_ID} — what Slope lines2 draws, computed apart from the figure."""\n'
    )
    cls, checks = load_module(path).SlopeLines2, load_module(oracle)
    for slope in (0, 3, 10):
        drawn, expected = checks.drawn_and_expected(cls(slope=slope), {"slope": slope})
        assert list(drawn["line"]) == expected["line"] == [slope * x for x in range(11)]

    class Moved(cls):  # the author changes what the figure draws, not yet its oracle
        def frame(self):
            changed = super().frame()
            changed["line"]["data"]["y"] = changed["line"]["data"]["y"] + 1
            return changed

    drawn, expected = checks.drawn_and_expected(Moved(slope=3), {"slope": 3})
    assert list(drawn["line"]) != expected["line"]


def test_a_new_figures_oracle_goes_to_the_checkouts_tests_oracles_by_default(tmp_path):
    figures_folder = Path(posviz.figures.__file__).parent
    assert scaffold.repository_oracles(figures_folder) == Path(__file__).parent / "oracles"
    # Anywhere else, no oracle: a folder in no checkout, and one too near the root.
    assert scaffold.repository_oracles(tmp_path) is None
    assert scaffold.repository_oracles(Path("/")) is None
    assert scaffold.repository_oracles(Path("/tmp")) is None


def test_a_new_figure_refuses_an_oracle_that_exists(tmp_path):
    (tmp_path / "oracles").mkdir()
    (tmp_path / "oracles" / "slope_lines.py").write_text("# someone's oracle\n", "utf-8")
    with pytest.raises(scaffold.ScaffoldError, match="slope_lines.py exists already"):
        scaffold.new_figure("SlopeLines", FREE_ID, folder=tmp_path, oracles=tmp_path / "oracles")
    assert not (tmp_path / "slope_lines.py").exists()


def test_a_new_figure_refuses_an_id_that_is_taken(tmp_path, capsys):
    taken = next(iter(FIGURES))
    err = refused(capsys, "figure", FREE_NAME, "--id", str(taken))
    assert f"figure id {taken} is taken" in err
    with pytest.raises(scaffold.ScaffoldError, match=f"figure id {taken} is taken"):
        scaffold.new_figure(FREE_NAME, taken, folder=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_new_figure_refuses_an_existing_file(tmp_path):
    (tmp_path / "slope_lines.py").write_text("# someone's draft\n", "utf-8")
    with pytest.raises(scaffold.ScaffoldError, match="slope_lines.py exists already") as refusal:
        scaffold.new_figure("SlopeLines", FREE_ID, folder=tmp_path)
    assert str(refusal.value).endswith(
        "choose another NAME, or remove it if it is left from an earlier try"
    )
    assert (tmp_path / "slope_lines.py").read_text("utf-8") == "# someone's draft\n"


def test_a_new_figure_refuses_a_class_name_another_module_defines(tmp_path):
    (tmp_path / "lines.py").write_text("class SlopeLines:\n    pass\n", "utf-8")
    with pytest.raises(scaffold.ScaffoldError, match="a class SlopeLines exists already in"):
        scaffold.new_figure("SlopeLines", FREE_ID, folder=tmp_path)


def test_a_new_figure_refuses_the_real_figures_file_and_class(capsys):
    cls = next(iter(FIGURES.values()))
    assert "exists already" in refused(capsys, "figure", cls.__name__, "--id", str(FREE_ID))


@pytest.mark.parametrize("name,why", [("slope", "is not a class name"), ("Model", "is taken by")])
def test_a_new_figure_refuses_a_bad_name(tmp_path, name, why):
    with pytest.raises(scaffold.ScaffoldError, match=why):
        scaffold.new_figure(name, FREE_ID, folder=tmp_path)


# --- the checkout it writes into ------------------------------------------------------


def checkout(folder: Path) -> Path:
    """A folder that looks like a posviz checkout: pyproject.toml and src/posviz/."""
    (folder / "src" / "posviz").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("[project]\nname = 'posviz'\n", "utf-8")
    return folder


def test_new_refuses_to_write_into_another_checkout_than_the_one_you_are_in(tmp_path):
    running, mine = checkout(tmp_path / "running"), checkout(tmp_path / "mine")
    (mine / "content").mkdir()
    with pytest.raises(scaffold.ScaffoldError) as refusal:
        scaffold.same_checkout(mine / "content", running)
    assert str(refusal.value) == (
        f"this posviz runs from {running}, not from the checkout you are in ({mine}),"
        f" and would write into {running}; run {mine}'s own ./dev new"
    )
    scaffold.same_checkout(running / "src", running)  # the checkout it runs from
    scaffold.same_checkout(tmp_path, running)  # no checkout here: an installed posviz's use
    scaffold.same_checkout(mine, None)  # posviz runs from a wheel: nothing of a checkout


def test_new_run_from_another_checkout_is_refused_and_writes_nothing(tmp_path, monkeypatch, capsys):
    mine = checkout(tmp_path / "mine")
    monkeypatch.chdir(mine)
    before = sorted(FIGURE_FILES.iterdir()), sorted(PAGES.iterdir())
    err = refused(capsys, "figure", FREE_NAME, "--id", str(FREE_ID))
    assert f"run {mine}'s own ./dev new" in err
    err = refused(capsys, "page", FREE_SLUG, "--title", "A page")
    assert f"run {mine}'s own ./dev new" in err
    assert (sorted(FIGURE_FILES.iterdir()), sorted(PAGES.iterdir())) == before
