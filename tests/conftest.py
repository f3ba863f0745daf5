"""Fixtures shared by unit and browser tests."""

import pytest


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

    from posviz.build.export import build

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
