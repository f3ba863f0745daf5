"""posviz from its wheel, in a fresh environment outside the checkout, as a docs author has it.

The wheel is built from a copy of the checkout's sources, installed with its
dependencies from ``requirements/host.lock`` into a new venv in a temporary
folder, and the README's smallest Sphinx and MkDocs examples run there: cwd,
PYTHONPATH and the content folder are all outside the checkout, so no code or
content of the checkout is used. Sphinx builds its site from the wheel; MkDocs
reuses that site as its prebuilt ``site:``. Slow (the install alone takes a
minute or two), and part of the suite.
"""

import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.browser import static_server
from tests.support.embedded import assert_not_clipped, live_frames
from tests.support.pages import press_on_slider

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("src", "content", "pyproject.toml", "setup.py", "README.md")
LOCK = REPO / "requirements" / "host.lock"
UV = REPO / ".venv-uv" / "bin" / "uv"  # ./dev installs it (requirements/lock-tool.lock)
pytestmark = [pytest.mark.slow, pytest.mark.browser]

SPHINX_CONF = 'extensions = ["posviz.sphinx"]\nproject = "An author\'s docs"\n'
SPHINX_PAGE = """\
Docs
====

.. posviz-figure:: 710
   :pos: 24
   :caption: Drag pos: the right curve stays put.
"""
MKDOCS_YML = """\
site_name: An author's docs
plugins:
  - search
  - posviz{options}
theme:
  name: material
  font: false
"""
MKDOCS_PAGE = (
    '# Docs\n\n::: posviz-figure 710 pos=24 caption="Drag pos: the right curve stays put."\n'
)
IFRAME = '<iframe src="_posviz/figure-710.html?pos=24" title="Clock hands at different speeds"'


def run(args, cwd: Path, env: dict, timeout: int = 900) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def outside_env(prefix: Path) -> dict:
    """The environment of an author's shell with the venv activated: nothing of the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "POSVIZ_"))}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{prefix / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """posviz's wheel, built from a copy of the checkout's sources."""
    copy = tmp_path_factory.mktemp("sources")
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=ignore)
        else:
            shutil.copy2(source, copy / name)
    out = tmp_path_factory.mktemp("wheel")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", ".", "-w", out, "--no-deps"]
    run([*pip_wheel, "--no-build-isolation", "-q"], copy, dict(os.environ))
    [built] = out.glob("posviz-*.whl")
    return built


@pytest.fixture(scope="module")
def author(tmp_path_factory, wheel) -> tuple[Path, dict]:
    """A fresh venv (outside the checkout) with the lock, then the wheel; its folder and env."""
    home = tmp_path_factory.mktemp("author")
    prefix = home / "venv"
    venv.EnvBuilder(with_pip=True).create(prefix)
    env = outside_env(prefix)
    # --no-compile: what the author imports is compiled on import; the rest never is.
    pip = [prefix / "bin" / "python", "-m", "pip", "install", "-q", "--no-compile"]
    # The dependencies as ./dev installs them, with uv (4.6 CPU-s against pip's 61) once
    # ./dev has installed it; the wheel itself with pip, as the README tells the author.
    deps = [UV, "pip", "install", "--quiet", "--python", prefix / "bin" / "python"]
    run(
        [*(deps if UV.exists() else pip), "--require-hashes", "--only-binary=:all:", "-r", LOCK],
        home,
        env,
    )
    run([*pip, "--no-deps", wheel], home, env)
    return home, env


@pytest.fixture(scope="module")
def sphinx_docs(author) -> Path:
    """The README's smallest Sphinx project, built in the author's venv: the site from the wheel."""
    home, env = author
    docs = home / "sphinx"
    docs.mkdir()
    (docs / "conf.py").write_text(SPHINX_CONF, "utf-8")
    (docs / "index.rst").write_text(SPHINX_PAGE, "utf-8")
    run(["sphinx-build", "-q", "-b", "html", docs, home / "sphinx-out"], home, env)
    return home / "sphinx-out"


def test_the_wheel_carries_the_content(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(n.removeprefix("posviz/_content/") for n in names if "/_content/" in n)
    expected = sorted(
        p.relative_to(REPO / "content").as_posix() for p in REPO.glob("content/*/*.md")
    )
    assert shipped == expected


def test_posviz_runs_from_the_venv_not_the_checkout(author):
    home, env = author
    where = run(["python", "-c", "import posviz; print(posviz.__file__)"], home, env).stdout
    assert where.startswith(str(home / "venv")), where
    assert run(["posviz", "check"], home, env).stdout.startswith("posviz: content OK: ")


def test_a_missing_content_folder_is_one_line_naming_what_to_set(author):
    home, env = author
    done = subprocess.run(
        ["posviz", "check"],
        cwd=home,
        env=env | {"POSVIZ_CONTENT": str(home / "no-such")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{home / 'no-such'}:0: no such folder" in done.stderr


def test_the_sphinx_example_builds_a_one_figure_site_from_the_wheel(sphinx_docs):
    index = (sphinx_docs / "index.html").read_text("utf-8")
    assert IFRAME in index
    site = sphinx_docs / "_posviz"
    assert (site / "figure-710.html").is_file() and (site / "pyodide").is_dir()
    assert sorted(p.name for p in site.glob("*.html")) == ["figure-710.html"]
    # One copy of the site in the output, -b html or not.
    assert [p.parent for p in sphinx_docs.rglob("site.json")] == [site]


def mkdocs_project(home: Path, name: str, page: str, options: str = "") -> Path:
    project = home / name
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(MKDOCS_YML.format(options=options), "utf-8")
    (project / "docs" / "index.md").write_text(page, "utf-8")
    return project


@pytest.mark.parametrize("prebuilt", [False, True], ids=["its-own-site", "prebuilt-site"])
def test_the_mkdocs_example_builds_or_copies_a_one_figure_site_and_keeps_search(
    author, sphinx_docs, prebuilt
):
    """As the README gives it (``- posviz``: the plugin builds the figures the pages
    embed), and with ``site:`` naming a prebuilt site, copied as it is."""
    home, env = author
    options = f":\n      site: {sphinx_docs / '_posviz'}" if prebuilt else ""
    project = mkdocs_project(home, f"mkdocs-{prebuilt}", MKDOCS_PAGE, options)
    run(["mkdocs", "build", "-q"], project, env)
    index = (project / "site" / "index.html").read_text("utf-8")
    assert IFRAME in index
    site = project / "site" / "_posviz"
    assert sorted(p.name for p in site.glob("*.html")) == ["figure-710.html"]
    assert (site / "pyodide").is_dir()
    assert (project / "site" / "search" / "search_index.json").is_file()


def failed_build(args, cwd: Path, env: dict) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    said = done.stdout + done.stderr
    assert done.returncode != 0, said[-3000:]
    assert "Traceback" not in said, said[-3000:]
    return said


def test_a_wrong_slider_value_fails_each_build_at_its_file_and_line(author):
    home, env = author
    docs = home / "sphinx-wrong"
    docs.mkdir()
    (docs / "conf.py").write_text(SPHINX_CONF, "utf-8")
    (docs / "index.rst").write_text(SPHINX_PAGE.replace(":pos: 24", ":pos: 500"), "utf-8")
    said = failed_build(["sphinx-build", "-q", "-b", "html", docs, home / "wrong-out"], home, env)
    assert f"{docs / 'index.rst'}:4" in said, said[-3000:]  # the directive's line
    assert "pos" in said and "500" in said and "100" in said, said[-3000:]

    page = "# Docs\n\nSome text.\n\n" + MKDOCS_PAGE.split("\n\n", 1)[1].replace("pos=24", "pos=500")
    project = mkdocs_project(home, "mkdocs-wrong", page)
    said = failed_build(["mkdocs", "build", "-q"], project, env)
    assert "index.md:5" in said, said[-3000:]
    assert "pos=500" in said and "100" in said, said[-3000:]


def test_the_author_s_docs_answer_a_slider_in_chromium_with_the_network_blocked(
    sphinx_docs, page, blocked
):
    """The docs as their author would host them: figure 710 opens at pos = 24, as the
    directive asked, and a key press on its slider moves the plot's readout to 25."""
    with static_server(sphinx_docs) as url:
        page.goto(f"{url}/index.html")
        ((hands, frame),) = live_frames(page, 1)
        readout = frame.locator(".posviz-readout p").first
        expect(readout).to_contain_text("pos = 24")
        press_on_slider(frame, 0, 0)
        frame.locator(".bk-slider-title", has_text="pos: 25").wait_for()
        expect(readout).to_contain_text("pos = 25")
        assert_not_clipped(page, hands)
    assert blocked == [], blocked
    assert page.errors == []


def test_the_copy_step_ends_with_a_line_giving_the_size_and_the_time(author):
    """The README's one-command copy (Zensical, MyST): off a terminal, one line per step,
    and a last line whose size is the folder's."""
    home, env = author
    out = home / "copied" / "_posviz"
    said = run(["posviz", "build", "--figures", "710", "--out", out], home, env).stdout
    lines = said.strip().splitlines()
    assert "\r" not in said and "\x1b" not in said, said  # nothing rewritten in a log
    last = re.fullmatch(
        rf"posviz build: wrote {re.escape(str(out))} \((\d+\.\d) MB\) in (\d+) s", lines[-1]
    )
    assert last, lines[-1]
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert float(last.group(1)) == round(size / 1e6, 1), (last.group(1), size)
    assert sorted(p.name for p in out.glob("*.html")) == ["figure-710.html"]
