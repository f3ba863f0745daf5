"""posviz.myst: the generated MyST plugin, in a real `myst build --site` outside the checkout.

Here `myst build --html` cannot fetch MyST's theme (it asks api.mystmd.org),
so the project names a local stand-in template: `--site` then writes each
page's AST as JSON (``_build/site/content``), which is what the theme renders.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from posviz import assets, deeplinks, embed, myst
from posviz.figures import FIGURES

ROOT = Path(__file__).resolve().parents[1]
MYST = ROOT / "node_modules" / ".bin" / "myst"

pytestmark = [
    pytest.mark.slow,  # real mystmd builds: the full run's, not ./dev test --fast
    pytest.mark.skipif(not MYST.exists(), reason="mystmd is installed by npm ci"),
]

CONFIG = """\
version: 1
project:
  title: posviz in MyST
  plugins:
    - plugins/posviz.mjs
site:
  template: ./theme
"""

# Front matter first, so a line number must count it.
INDEX = """\
---
title: Figures in docs
---

The clock hands, at position 24:

```{posviz-figure} 710
:pos: 24
:caption: Drag pos: the right curve stays put.
```

A wider model:

```{posviz-figure} 96
:d_model: 1024
:height: 300
```
"""

SECOND = """\
# Second page

```{posviz-figure} 7256
:k: 12
:m: 20
```

A row that only a wider image has, written before the width that allows it:

```{posviz-figure} 2010
:row: 15
:side: 256
```
"""

# Each wrong directive on its own lines: (line of the fault, what the build says).
BAD = """\
# Wrong figures

```{posviz-figure} 710
:pos: 500
```

```{posviz-figure} 710
:d_model: 17
```

```{posviz-figure} 9999
```

```{posviz-figure} 710
:height: 24
:zz: 3
```

```{posviz-figure} 2010
:row: 14
```

```{posviz-figure} 4121
:col: 12
:side: 12
```
"""
BAD_LINES = [
    (4, "posviz-figure 710: :pos: 500: must be from 0 to 100"),
    (8, "posviz-figure 710: :d_model: 17: must be even"),
    (11, "posviz-figure: there is no figure 9999; the figures are "),
    (16, "posviz-figure 710: figure 710 has no slider 'zz'; its sliders are pos, d_model"),
    (20, "posviz-figure 2010: :row: 14: must be from 0 to 13 when side is 224 and patch is 16"),
    (24, "posviz-figure 4121: :col: 12: must be from 0 to 11 when side is 12"),
]
# The moved-bounds cases above, as posviz.embed (Sphinx, MkDocs, Markdown) refuses them.
EMBED_SAYS = {
    (2010, (("row", "14"),)): BAD_LINES[4][1],
    (4121, (("col", "12"), ("side", "12"))): BAD_LINES[5][1],
}


def project(root: Path, pages: dict[str, str]) -> Path:
    """A MyST project at ``root`` using the plugin that ``posviz.myst`` writes."""
    for name, text in {"myst.yml": CONFIG, **pages}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    # The stand-in for book-theme: enough for `myst build --site`, nothing to render.
    (root / "theme").mkdir()
    (root / "theme" / "template.yml").write_text("jtex: v1\ntitle: offline stand-in\n", "utf-8")
    myst.write_plugin(root / "plugins" / "posviz.mjs")
    return root


def build(root: Path, *flags: str) -> tuple[int, str]:
    """``myst build --site`` in ``root``: (exit code, what it printed)."""
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    done = subprocess.run(
        [str(MYST), "build", "--site", *flags],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    return done.returncode, done.stdout + done.stderr


def widgets(root: Path, page: str) -> list[dict]:
    """The anywidget nodes of one page's AST, in reading order."""
    found, pending = [], [json.loads((root / "_build/site/content" / page).read_text())["mdast"]]
    while pending:
        node = pending.pop(0)
        found += [node] if node.get("type") == "anywidget" else []
        pending[:0] = node.get("children", [])
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = project(tmp_path_factory.mktemp("myst"), {"index.md": INDEX, "more/second.md": SECOND})
    code, printed = build(root, "--strict")
    return root, code, printed


def test_the_page_ast_holds_a_titled_sized_widget_with_the_deep_link(built):
    root, code, printed = built
    assert code == 0, printed
    clock, budget = widgets(root, "index.json")
    assert clock["model"] == {
        "site": "_posviz/",
        "path": "figure-710.html?pos=24",
        "title": "Clock hands at different speeds",
        "height": 560,
        "caption": "Drag pos: the right curve stays put.",
    }
    assert budget["model"]["path"] == "figure-96.html?d_model=1024"
    assert budget["model"]["height"] == 300 and budget["model"]["title"] == FIGURES[96].title
    _, grid = widgets(root, "second.json")
    assert grid["model"]["path"] == "figure-2010.html?row=15&side=256"


@pytest.mark.parametrize("case", EMBED_SAYS.items(), ids=["2010 row", "4121 col"])
def test_the_python_embeds_refuse_a_moved_slider_in_the_plugins_words(case):
    (figure_id, options), said = case
    with pytest.raises(ValueError) as refused:
        embed.figure_query(figure_id, dict(options))
    assert f"posviz-figure {figure_id}: {refused.value}" == said


def test_every_page_gets_the_one_widget_module_myst_copied(built):
    root, code, printed = built
    assert code == 0, printed
    pages = ("index.json", "second.json")
    modules = {node["esm"] for page in pages for node in widgets(root, page)}
    assert len(modules) == 1, modules  # a page in a folder finds the same module
    (module,) = modules
    copied = root / "_build/site/public" / module.lstrip("/")
    assert copied.read_text("utf-8") == myst.widget_source()
    assert "__" not in myst.widget_source()  # every placeholder filled


def test_a_wrong_figure_or_value_fails_the_strict_build_at_its_file_and_line(tmp_path):
    root = project(tmp_path, {"index.md": INDEX, "bad.md": BAD})
    code, printed = build(root, "--strict")
    assert code == 1, printed
    for line, message in BAD_LINES:
        assert f"bad.md:{line} {message}" in printed, printed
    assert f"Site has {len(BAD_LINES)} errors" in printed
    assert "    at " not in printed  # a message per directive, no stack trace


def test_a_build_without_strict_reports_each_wrong_directive_and_shows_it(tmp_path):
    root = project(tmp_path, {"bad.md": BAD})
    code, printed = build(root)
    assert code == 0, printed  # MyST's way: only --strict stops on errors
    for line, message in BAD_LINES:
        assert f"bad.md:{line} {message}" in printed, printed
    assert widgets(root, "bad.json") == []
    page = (root / "_build/site/content/bad.json").read_text("utf-8")
    assert page.count('"kind": "error"') + page.count('"kind":"error"') == len(BAD_LINES)


def test_the_plugin_carries_every_figures_sliders_and_the_shared_grammar():
    source = myst.plugin_source()
    for make in FIGURES.values():
        assert json.dumps(deeplinks.figure_spec(make())["sliders"]) in source
    # links.js as its module object: its body, then an object of every name it exports.
    _, body, exported = assets.module("posviz.export", "links.js")
    assert body in source and f"return {{{', '.join(exported)}}};" in source
    assert {"parse", "read", "write", "noticeHtml"} <= set(exported)
    assert not [word for word in ("__FIGURES__", "__LINKS__", "__SITE__") if word in source]


def test_the_command_writes_the_plugin_and_its_widget(tmp_path, capsys):
    assert myst.main(["--out", str(tmp_path / "docs" / "posviz.mjs"), "--site-url", "figs"]) == 0
    said = capsys.readouterr().out
    assert "plugins: [posviz.mjs]" in said
    plugin = (tmp_path / "docs" / "posviz.mjs").read_text("utf-8")
    assert 'const SITE = "figs/";' in plugin
    assert (tmp_path / "docs" / "posviz-embed.mjs").is_file()


def test_a_site_url_that_is_no_url_folder_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit):
        myst.main(["--site-url", "a b"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.endswith(
        "'a b' is not a URL folder (as in _posviz/ or https://example.org/figures/)"
    )
