"""A figure module is held to numpy and param by ``lint-imports``, the day it lands.

The contract (``models-numpy-param`` in pyproject.toml) names the package, not
its modules: a module added tomorrow is under it. These tests add one to a copy
of the package and run the linter there, as ``./dev lint`` runs it.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = "figure models and frames import numpy and param only"


def lint(tmp_path: Path, module: str, source: str) -> subprocess.CompletedProcess:
    """Run lint-imports on a copy of the package with one more module in it."""
    copy = tmp_path / "src"
    shutil.copytree(
        ROOT / "src" / "posviz",
        copy / "posviz",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (copy / "posviz" / module).write_text(source, "utf-8")
    linter = Path(sys.executable).parent / "lint-imports"
    return subprocess.run(
        [str(linter), "--no-cache", "--no-logo", "pyproject.toml"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


NUMPY_AND_PARAM = '''"""A draft figure."""

import numpy as np
import param
'''


@pytest.mark.parametrize(
    "module,imports,refused",
    [
        ("figures/draft.py", "import panel\n", "posviz.figures.draft -> panel"),
        (
            "figures/draft.py",
            "def draw():\n    import holoviews\n",
            "posviz.figures.draft -> holoviews",
        ),
        ("figures/draft.py", "from bokeh.models import Range1d\n", "posviz.figures.draft -> bokeh"),
        ("frames/draft.py", "import pandas\n", "posviz.frames.draft -> pandas"),
        (
            "figures/draft.py",
            "from posviz.drawing import plots\n",
            "posviz.figures.draft -> posviz.drawing",
        ),
    ],
)
def test_a_new_figure_module_that_imports_a_drawing_library_fails_lint(
    tmp_path, module, imports, refused
):
    done = lint(tmp_path, module, NUMPY_AND_PARAM + imports)
    assert done.returncode != 0, done.stdout
    broken = done.stdout.split("Broken contracts", 1)[-1]
    assert CONTRACT in broken and refused in broken, done.stdout


def test_a_new_figure_module_with_numpy_and_param_passes_lint(tmp_path):
    done = lint(tmp_path, "figures/draft.py", NUMPY_AND_PARAM)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{CONTRACT}: the numpy tier runs them KEPT" in " ".join(done.stdout.split())
