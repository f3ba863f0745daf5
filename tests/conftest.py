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
def built_site(tmp_path_factory):
    """`posviz build` once per test session (the Pyodide distribution is cached)."""
    from posviz.build.export import build

    out = tmp_path_factory.mktemp("site") / "site"
    assert build(out) == 0, "posviz build failed; see its output above"
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
