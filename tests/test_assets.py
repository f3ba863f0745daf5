"""The registry of JavaScript and CSS files fills every placeholder or refuses."""

import re
from importlib import resources

import pytest

from posviz import assets


def test_a_placeholder_left_unfilled_names_the_file_and_the_placeholder():
    with pytest.raises(assets.AssetError, match=r"posviz/export/worker\.js: .*unfilled: SITE"):
        assets.render("posviz.export", "worker.js")


def test_a_value_for_no_placeholder_is_refused():
    with pytest.raises(assets.AssetError, match=r"posviz/embed\.js: has no placeholder.*ROUTE"):
        assets.render("posviz", "embed.js", MAX_HEIGHT="10", ROUTE="x")


def test_every_placeholder_is_filled_once_with_the_literal_given():
    script = assets.script(
        "posviz.compose",
        "page_script.js",
        PAGE_CSS="a</style>",
        THEMES={},
        THEMED={},
        REMAPPED=[],
        LIGHT_INKS=["#000"],
    )
    assert not assets.PLACEHOLDER.search(script)
    assert 'const PAGE_CSS = "a\\u003c/style>"' in script  # safe inside a <script>
    assert 'LIGHT_INKS = ["#000"]' in script


def test_no_python_module_holds_a_script_or_stylesheet_in_a_string():
    # Markers of JavaScript and CSS code that a Python string would carry.
    code = re.compile(r"=>|function\s*\(|document\.query|window\.[A-Za-z_]|:host\s*\{|@media\s*\(")
    package = resources.files("posviz")
    # The one exception: the bundler's wrapper of a module, an arrow function made in
    # assets.bundle (three strings), is the glue between files, not a script of its own.
    glue = ["assets.py: =>"] * 3
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text("utf-8")
        found += [f"{path.name}: {m.group(0)}" for m in code.finditer(text)]
    assert found == glue
