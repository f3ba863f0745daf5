"""What each layer imports when it runs, in a fresh Python: one subprocess for all of it.

``lint-imports`` reads the source (pyproject.toml's ``forbidden`` contracts); these
probes import the modules for real, so a library that imports another behind them
counts too. The modules come from the package itself (``pkgutil.walk_packages``)
and the figures from the registry, so a module or figure added tomorrow is probed
without a list here. Every probe runs in a fresh child of one subprocess
(tests/support/imports.py).
"""

import pkgutil
import tomllib
from pathlib import Path

import pytest

import posviz
from posviz.figures import FIGURES
from tests.support.imports import imported_each

ROOT = Path(__file__).resolve().parents[1]
# Libraries a module may import only at run time (inside a function), as the docs
# plugins do: importing the module itself must not load them.
AT_IMPORT = {
    "posviz.markdown_ext": ("markdown", "mkdocs", "zensical", "panel"),
    "posviz.mkdocs": ("mkdocs", "markdown", "panel"),
    "posviz.sphinx": ("sphinx", "docutils", "panel"),
}
UI = ("panel", "holoviews", "bokeh", "pandas", "yaml")


def modules() -> list[str]:
    """Every module of the package, as found on disk."""
    return sorted(m.name for m in pkgutil.walk_packages(posviz.__path__, "posviz."))


def forbidden_contracts() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(source modules, forbidden libraries) of pyproject's forbidden contracts, libraries only."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    return [
        (
            tuple(contract["source_modules"]),
            tuple(m for m in contract["forbidden_modules"] if not m.startswith("posviz")),
        )
        for contract in config["contracts"]
        if contract["type"] == "forbidden"
    ]


def forbidden_for(module: str) -> tuple[str, ...]:
    """The libraries importing ``module`` must not load, by the contracts and AT_IMPORT."""
    found = set(AT_IMPORT.get(module, ()))
    for sources, libraries in forbidden_contracts():
        if any(module == s or module.startswith(s + ".") for s in sources):
            found |= set(libraries)
    return tuple(sorted(found))


RULED = [module for module in modules() if forbidden_for(module)]

# What the layers do, beyond being imported: each over every figure in the registry.
BEHAVIOUR = {
    # The numpy tier's work: a figure's frame and texts.
    "frames and texts": (
        "from posviz.figures import FIGURES\n"
        "for cls in FIGURES.values():\n"
        "    figure = cls()\n"
        "    figure.frame(), figure.readout(), figure.describe(), figure.table()\n"
        "print(len(FIGURES))\n",
        UI,
    ),
    # The worker's numpy tier answering a request for each figure, as the page asks.
    "numpy tier answers": (
        "import json\n"
        "from posviz.figures import FIGURES\n"
        "from posviz.runtime import compute\n"
        "for fid, cls in FIGURES.items():\n"
        "    asked = {'module': cls.__module__, 'figure': fid, 'values': cls().values(),\n"
        "             'link': f'figure-{fid}'}\n"
        "    text, _ = compute.answer(json.dumps(asked))\n"
        "    assert json.loads(text)['text']['readout'], text\n"
        "print(len(FIGURES))\n",
        UI,
    ),
    # Discovery reads the ids from the source, and the content loads, without Param.
    "figure ids and content": (
        "from posviz.figures import figure_ids\nfrom posviz.content import load\n"
        "ids = figure_ids(); load()\nprint(len(ids))\n",
        ("holoviews", "panel", "bokeh", "param"),
    ),
}


@pytest.fixture(scope="module")
def probed() -> dict[str, dict]:
    """Every probe's answer, from one subprocess."""
    probes = {f"import {m}": (f"import {m}\n", forbidden_for(m)) for m in RULED}
    return imported_each(probes | BEHAVIOUR)


def answer(probed: dict, name: str) -> dict:
    result = probed[name]
    assert "error" not in result, f"{name} failed:\n{result['error']}"
    return result


def test_the_rules_reach_the_layers_the_contracts_name():
    """The probe list is derived, so check it is not empty where the contracts point."""
    for prefix in ("posviz.figures.", "posviz.frames.", "posviz.maths.", "posviz.content."):
        assert any(m.startswith(prefix) for m in RULED), prefix
    assert "posviz.runtime.compute" in RULED and set(AT_IMPORT) <= set(RULED)


@pytest.mark.parametrize("module", RULED)
def test_importing_a_module_loads_no_library_its_layer_forbids(probed, module):
    found = answer(probed, f"import {module}")["found"]
    assert found == [], f"import {module} loads {found}, which its layer forbids"


@pytest.mark.parametrize("what", sorted(BEHAVIOUR))
def test_each_figure_through_a_lower_layer_loads_no_ui_library(probed, what):
    result = answer(probed, what)
    assert result["found"] == [], f"{what}: loads {result['found']}"
    assert result["printed"] == str(len(FIGURES)), f"{what}: not every figure was probed"
