"""What a newcomer's copy of the repository holds: CONTRIBUTING's files, and what is left out."""

import inspect
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def left_out(root: Path = ROOT):
    """``shutil.copytree``'s ``ignore``: what a fresh clone of ``root`` would not have.

    That is .git and whatever git ignores there now: environments (.venv-3.12 alone is
    1.1 GB: 35 s and 14 CPU-s to copy), caches, built sites, other runs' state. Asked of
    git at the call, so a folder ignored later in a run is left out too.
    """
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    ignored = {root / ".git", *(root / path.rstrip("/") for path in listed.split("\0") if path)}

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {name for name in names if Path(folder, name) in ignored}

    return ignore


# Each file CONTRIBUTING.md shows in full opens with a comment naming its path.
EXAMPLE = re.compile(r"```python\n# ((?:src|tests)/[\w/]+\.py)\n(.*?)```", re.DOTALL)


def contributing_examples() -> dict[str, str]:
    """Path → code of each file CONTRIBUTING.md shows: the figure and its oracle."""
    text = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    return {path: f"# {path}\n{code}" for path, code in EXAMPLE.findall(text)}


# --- the newcomer's run: only what a new figure and page touch ----------------------
#
# Loaded in the copy as a plugin (``-p tests.support.newcomer``) with the new figures'
# ids in NEWCOMER_ENV. The main suite already runs every test on the figures and pages
# it has; in the copy, a test can only turn red through what the newcomer added. So
# the run keeps
#   * every test parametrized by a new figure (its id, its class, or its route), and
#   * the tests parametrized by no figure whose own code reads the registry or the
#     content (discovery, registration, routes, prose), so a loop over every figure
#     or page meets the new ones,
# and leaves out the tests of the old figures, the tests that read neither, the
# ``slow`` ones and those that build a whole site (``built_site``: the newcomer's
# export is built by tests/ui/test_newcomer_export.py).

NEWCOMER_ENV = "POSVIZ_NEWCOMER_FIGURES"
# What a test's code says when it reads the figure registry or the content folder.
READS_REGISTRY_OR_CONTENT = re.compile(
    r"\bFIGURES\b|\bfigure_ids\b|\bcontent\.load\b|\bCONTENT\b|from posviz import [^\n]*\bcontent\b"
)
FIGURE_ROUTE = re.compile(r"^figure-(\d+)$")


def figures_in(name: str, value) -> set[int]:
    """The figure ids a test parameter names: a class, an id (by its name), a route."""
    if isinstance(value, list | tuple):
        return set().union(*(figures_in(name, v) for v in value)) if value else set()
    figure_id = getattr(value, "figure_id", None)
    if isinstance(value, type) and isinstance(figure_id, int):
        return {figure_id}
    if "figure" in name and isinstance(value, int | str) and str(value).isdigit():
        return {int(value)}  # an id, or an id as a string
    if isinstance(value, str) and (found := FIGURE_ROUTE.match(value)):
        return {int(found.group(1))}
    return set()


def reads_registry_or_content(function) -> bool:
    """Whether a test's own code names the figure registry or the content folder."""
    try:
        return bool(READS_REGISTRY_OR_CONTENT.search(inspect.getsource(function)))
    except (OSError, TypeError):
        return False


def touched(item, new: set[int]) -> bool:
    """Whether a new figure or page can change this test's outcome."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    named = set().union(*(figures_in(n, v) for n, v in params.items())) if params else set()
    if named:
        return bool(named & new)
    if item.get_closest_marker("slow") or "built_site" in getattr(item, "fixturenames", ()):
        return False
    return reads_registry_or_content(getattr(item, "function", None))


def pytest_collection_modifyitems(config, items):
    """In the newcomer's copy only (NEWCOMER_ENV set): keep what the new figures touch."""
    asked = os.environ.get(NEWCOMER_ENV)
    if not asked:
        return
    new = {int(figure_id) for figure_id in asked.split(",")}
    keep = {id(item): touched(item, new) for item in items}
    config.hook.pytest_deselected(items=[item for item in items if not keep[id(item)]])
    items[:] = [item for item in items if keep[id(item)]]
