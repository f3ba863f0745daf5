"""Fixtures shared by unit and browser tests."""

import pytest

from tests.support.selection import figure_words, stable_text


@pytest.fixture(autouse=True)
def fresh_panel_state():
    """Each test starts from Panel's pristine global state (documents, locations, caches)."""
    yield
    import sys

    if "panel" in sys.modules:  # tests that never import Panel stay free of it
        sys.modules["panel"].state.reset()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id):
    """`posviz build` once per test run (the Pyodide distribution is cached).

    Under pytest-xdist the processes share one build: the first to need it
    builds under a file lock, the others wait for it and reuse it.
    """
    from filelock import FileLock

    from posviz.export.command import build

    if worker_id == "master":  # one process
        out = tmp_path_factory.mktemp("site") / "site"
        assert build(out) == 0, "posviz build failed; see its output above"
        return out
    shared = tmp_path_factory.getbasetemp().parent  # the same for every process of the run
    out, done = shared / "site", shared / "site.built"
    with FileLock(str(shared / "site.lock")):
        if not done.is_file():
            assert build(out) == 0, "posviz build failed; see its output above"
            done.touch()
    return out


@pytest.fixture
def views_as_served(monkeypatch):
    """Views are built as under ``posviz serve``, from the repository's content."""
    from posviz.compose import views
    from tests.support.compose import CONTENT

    monkeypatch.delenv("POSVIZ_EXPORT", raising=False)
    monkeypatch.setenv("POSVIZ_CONTENT", str(CONTENT))
    views.library.cache_clear()
    yield
    views.library.cache_clear()


@pytest.fixture
def views_of_fixture(monkeypatch, views_as_served):
    """Views are built as under ``posviz serve``, from the tests' own fixture content
    (tests/data/content_fixture): structure is tested there, so that the real pages'
    prose stays free to change."""
    from posviz.compose import views
    from tests.support.content_checks import FIXTURE

    monkeypatch.setenv("POSVIZ_CONTENT", str(FIXTURE))
    views.library.cache_clear()
    yield
    views.library.cache_clear()


def pytest_addoption(parser):
    parser.addoption(
        "--figure",
        action="append",
        default=[],
        metavar="ID",
        help="run only the tests of figure ID (repeatable): those whose name or parameters "
        "name its id, its class or its module, e.g. --figure 710",
    )


# Fixtures that cost a whole site build: a test using one is ``slow`` (the fast
# tier, ``./dev test --fast``, leaves it to the full run).
BUILDS = {"built_site"}


def pytest_itemcollected(item):
    if BUILDS & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """``--figure ID`` keeps the tests that name the figure and deselects the others.

    Then every run goes in a new order (pytest-randomly), but a module that sets
    ``IN_ORDER`` is a scenario in steps over one browser session per engine: its steps
    keep their written order, grouped by engine, in the places the shuffle gave it.
    """
    if ids := config.getoption("--figure", default=[]):
        words = figure_words(ids)
        keep, drop = [], []
        for item in items:
            spec = getattr(item, "callspec", None)
            text = " ".join([item.nodeid, *map(stable_text, spec.params.values() if spec else ())])
            (keep if any(word.search(text) for word in words) else drop).append(item)
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    written = {id(item): n for n, item in enumerate(items)}
    yield
    places = [n for n, item in enumerate(items) if getattr(item.module, "IN_ORDER", False)]

    def step(item):
        spec = getattr(item, "callspec", None)
        return (tuple(sorted(spec.indices.items())) if spec else (), written[id(item)])

    for place, item in zip(places, sorted((items[n] for n in places), key=step), strict=True):
        items[place] = item
