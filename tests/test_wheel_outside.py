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
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("src", "content", "pyproject.toml", "setup.py", "README.md")
LOCK = REPO / "requirements" / "host.lock"
pytestmark = pytest.mark.slow

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
  - posviz:
      site: {site}
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
    pip = [prefix / "bin" / "python", "-m", "pip", "install", "-q"]
    run([*pip, "--require-hashes", "--only-binary=:all:", "-r", LOCK], home, env)
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


def test_the_mkdocs_example_embeds_the_prebuilt_site_and_keeps_search(author, sphinx_docs):
    home, env = author
    project = home / "mkdocs"
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(MKDOCS_YML.format(site=sphinx_docs / "_posviz"), "utf-8")
    (project / "docs" / "index.md").write_text(MKDOCS_PAGE, "utf-8")
    run(["mkdocs", "build", "-q"], project, env)
    index = (project / "site" / "index.html").read_text("utf-8")
    assert IFRAME in index
    assert (project / "site" / "_posviz" / "figure-710.html").is_file()
    assert (project / "site" / "search" / "search_index.json").is_file()
