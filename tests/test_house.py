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
