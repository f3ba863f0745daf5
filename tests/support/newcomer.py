"""What a newcomer's copy of the repository holds: CONTRIBUTING's files, and what is left out."""

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Not what a fresh clone has: environments, caches, built sites, other checkouts' state.
LEFT_OUT = shutil.ignore_patterns(
    ".git",
    ".venv",
    "node_modules",
    ".posviz",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    "site",
    "*.pyc",
)
# Each file CONTRIBUTING.md shows in full opens with a comment naming its path.
EXAMPLE = re.compile(r"```python\n# ((?:src|tests)/[\w/]+\.py)\n(.*?)```", re.DOTALL)


def contributing_examples() -> dict[str, str]:
    """Path → code of each file CONTRIBUTING.md shows: the figure and its oracle."""
    text = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    return {path: f"# {path}\n{code}" for path, code in EXAMPLE.findall(text)}
