"""`posviz new figure | page`: a new figure module or page from a template file.

The templates live in ``posviz/templates/``: ``figure.py`` is a real figure
that passes the test suite as written, with ``oracle.py`` its oracle (what it
draws, computed apart: ``tests/oracles/``), and ``page.md`` a page that
``posviz check`` accepts. Each command refuses, in one line (``ScaffoldError``),
to take an id, a slug, a class name or a file that exists already.
"""

import ast
import json
import re
import string
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from posviz import content
from posviz.paths import checkout_of

CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*")
TEMPLATE_CLASS, TEMPLATE_ID, TEMPLATE_TITLE = "NewFigure", "figure_id = 0\n", '"A new figure"'


class ScaffoldError(ValueError):
    """What stops ``posviz new``, in one line."""


class NewFigure(NamedTuple):
    """What ``new_figure`` wrote: the figure module, and its oracle.

    The oracle is None outside a checkout, which has no ``tests/oracles`` to hold it.
    """

    module: Path
    oracle: Path | None


def same_checkout(here: Path, running: Path | None) -> None:
    """Refuse when ``here`` is in a posviz checkout other than ``running``.

    ``here`` is the working folder, ``running`` the checkout posviz runs from, which
    ``posviz new`` writes into: one checkout's ``.venv`` run from another would write
    there, unseen.
    """
    mine = checkout_of(here)
    if mine is not None and running is not None and mine != running.resolve():
        raise ScaffoldError(
            f"this posviz runs from {running}, not from the checkout you are in ({mine}),"
            f" and would write into {running}; run {mine}'s own ./dev new"
        )


def template(name: str) -> str:
    """The text of ``posviz/templates/<name>``."""
    return resources.files("posviz").joinpath("templates", name).read_text("utf-8")


def module_name(class_name: str) -> str:
    """``QueryReach`` → ``query_reach``: the figure's module, named after its class."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", class_name).lower()


def title_of(class_name: str) -> str:
    """``QueryReach`` → ``Query reach``: a first title, until the author writes one."""
    return module_name(class_name).replace("_", " ").capitalize()


def _figure_classes(folder: Path) -> dict[str, Path]:
    """Class name → module of every class defined at the top of the figure modules."""
    found = {}
    for source in sorted(folder.glob("*.py")):
        tree = ast.parse(source.read_bytes(), str(source))
        found.update({n.name: source for n in tree.body if isinstance(n, ast.ClassDef)})
    return found


def repository_oracles(figures_folder: Path) -> Path | None:
    """``tests/oracles`` of the checkout whose ``src/posviz/figures`` is given, if any."""
    above = figures_folder.resolve().parents
    if len(above) < 3:  # a folder too near the root to be a checkout's
        return None
    folder = above[2] / "tests" / "oracles"
    return folder if (folder / "__init__.py").is_file() else None


def _from_template(name: str, replacements) -> str:
    """Template ``name`` without its docstring, each (old, new) replaced exactly once."""
    text = template(name)
    end = ast.parse(text).body[0].end_lineno  # the template's docstring, replaced
    body = text.split("\n", end)[end]
    for old, new in replacements:
        assert body.count(old) == 1, f"the {name} template lost {old!r}"
        body = body.replace(old, new)
    return body


def new_figure(
    name: str, figure_id: int, title: str | None = None, folder=None, oracles=None
) -> NewFigure:
    """Write the figure module ``<folder>/<name as snake_case>.py``, and its oracle.

    The oracle is ``<oracles>/<same name>.py``; ``oracles`` is by default the
    checkout's ``tests/oracles``, and outside a checkout none is written.
    """
    from posviz import figures

    folder = Path(folder) if folder else Path(figures.__file__).parent
    oracles = Path(oracles) if oracles else repository_oracles(folder)
    if not CLASS_NAME.fullmatch(name):
        raise ScaffoldError(f"{name!r} is not a class name: letters and digits, like ClockHands")
    if not 0 < figure_id < 10**9:
        raise ScaffoldError(f"figure id {figure_id} must be a whole number from 1 to 999999999")
    path = folder / f"{module_name(name)}.py"
    oracle = oracles / path.name if oracles else None
    for taken in (path, oracle):
        if taken is not None and (taken.exists() or taken.is_symlink()):
            raise ScaffoldError(
                f"{taken} exists already; choose another NAME, or remove it if it is"
                " left from an earlier try"
            )
    if module_name(name) in figures.NOT_FIGURES:
        raise ScaffoldError(f"{path.name} is taken by posviz.figures itself; choose another NAME")
    if figure_id in figures.figure_ids():
        raise ScaffoldError(f"figure id {figure_id} is taken; choose another --id")
    if name in (classes := _figure_classes(folder)):
        raise ScaffoldError(f"a class {name} exists already in {classes[name]}")
    title = " ".join((title or title_of(name)).split())
    body = _from_template(
        "figure.py",
        [
            (f"class {TEMPLATE_CLASS}(", f"class {name}("),
            (f"    {TEMPLATE_ID}", f"    figure_id = {figure_id}\n"),
            (f"title = {TEMPLATE_TITLE}", f"title = {json.dumps(title, ensure_ascii=False)}"),
        ],
    )
    path.write_text(f'"""Figure {figure_id} — {title}."""\n{body}', "utf-8")
    if oracle is not None:
        checks = _from_template("oracle.py", [])
        head = f"Figure {figure_id} — what {title} draws, computed apart from the figure."
        oracle.write_text(f'"""{head}"""\n{checks}', "utf-8")
    return NewFigure(path, oracle)


def new_page(slug: str, title: str, root=None) -> Path:
    """Write ``<content>/pages/<slug>.md`` and check it loads; its path."""
    root = Path(root) if root else content.default_root()
    if not content.SLUG.fullmatch(slug):
        raise ScaffoldError(
            f"{slug!r} is not a slug: lower-case letters, digits and single hyphens"
        )
    title = " ".join(title.split())
    if not title:
        raise ScaffoldError("a page needs a --title")
    path = root / "pages" / f"{slug}.md"
    if path.exists() or path.is_symlink():
        raise ScaffoldError(f"{path} exists already; choose another slug")
    try:
        library = content.load(root)
    except content.ContentError as error:
        raise ScaffoldError(
            f"content has {len(error.problems)} problem(s); fix them first (posviz check)"
        ) from None
    if slug in library.pages:
        raise ScaffoldError(f"slug {slug} is taken by {library.pages[slug].path}")
    text = string.Template(template("page.md")).substitute(
        slug=slug, title=json.dumps(title, ensure_ascii=False)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    try:
        content.load(root)
    except content.ContentError as error:
        path.unlink()
        raise ScaffoldError(f"the new page would not load: {error.problems[0]}") from None
    return path
