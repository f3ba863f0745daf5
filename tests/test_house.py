"""The house's rules that a linter contract cannot state: no module imports a test module.

Helpers shared between tests, and with the benchmarks, live in tests/support/.
The import graph comes from grimp, the library under import-linter (``./dev lint``).
"""

import grimp


def is_test_module(name: str) -> bool:
    leaf = name.rsplit(".", 1)[-1]
    return leaf.startswith("test_") or leaf == "conftest"


def offenders(graph) -> list[str]:
    return sorted(
        f"{importer} imports {imported}"
        for imported in graph.modules
        if is_test_module(imported)
        for importer in graph.find_modules_that_directly_import(imported)
    )


def test_no_module_imports_a_test_module_or_a_conftest():
    assert offenders(grimp.build_graph("tests", "benchmarks", cache_dir=None)) == []


def test_an_import_of_a_test_module_is_found():
    graph = grimp.build_graph("tests", cache_dir=None)
    graph.add_import(importer="tests.test_tags", imported="tests.test_compose")
    graph.add_import(importer="tests.ui.test_serve", imported="tests.ui.conftest")
    assert offenders(graph) == [
        "tests.test_tags imports tests.test_compose",
        "tests.ui.test_serve imports tests.ui.conftest",
    ]


def test_the_readme_quotes_the_one_table_of_targets():
    from pathlib import Path

    from benchmarks.results_md import QUOTE_END, QUOTE_START, targets_markdown

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    quoted = readme.split(QUOTE_START, 1)[1].split(QUOTE_END, 1)[0].strip()
    assert quoted == targets_markdown(), "run ./dev bench (or results_md.quote_targets)"


def browser_modules(graph) -> set[str]:
    """posviz's modules the worker's Python imports, starting from posviz.runtime.

    The figures and frames are imported by name (pkgutil, importlib): all of them.
    """
    pending = [
        m
        for m in graph.modules
        if m.startswith(("posviz.runtime", "posviz.figures", "posviz.frames"))
    ]
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module not in seen and module.startswith("posviz"):
            seen.add(module)
            pending.extend(graph.find_modules_directly_imported_by(module))
    return seen


def host_only_in(modules: set[str]) -> list[str]:
    from posviz.export.payload import HOST_ONLY

    left_out = {name.removesuffix(".py") for name in HOST_ONLY}
    return sorted(m for m in modules if m.split(".")[1:2] and m.split(".")[1] in left_out)


def test_nothing_the_browser_imports_is_left_out_of_its_wheel():
    graph = grimp.build_graph("posviz", cache_dir=None)
    modules = browser_modules(graph)
    assert {"posviz.runtime.boot", "posviz.compose.views", "posviz.urls"} <= modules
    assert host_only_in(modules) == []
    graph.add_import(importer="posviz.compose.views", imported="posviz.scaffold")
    assert host_only_in(browser_modules(graph)) == ["posviz.scaffold"]


def test_no_host_only_module_says_the_browser_gets_it():
    """A docstring that says a module ships to the browser, when HOST_ONLY keeps it
    home, misleads whoever decides what it may import."""
    import ast
    from pathlib import Path

    import posviz
    from posviz.export.payload import HOST_ONLY

    package = Path(posviz.__file__).parent
    claims = []
    for name in HOST_ONLY:
        if not name.endswith(".py") and not (package / name / "__init__.py").is_file():
            continue  # a data file or a folder of files
        path = package / name if name.endswith(".py") else package / name / "__init__.py"
        doc = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
        if "the browser installs" in doc or "shipped in the wheel" in doc.lower():
            claims.append(name)
    assert claims == [], f"these say they ship to the browser, but HOST_ONLY keeps them: {claims}"
