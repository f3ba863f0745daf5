"""The build hook that puts ``content/`` into the wheel as ``posviz/_content/``.

Everything else is in pyproject.toml. The content stays at the top of the
checkout, where authors edit it; ``posviz.content.default_root`` finds it there
in a checkout (an editable install included) and in the wheel's
``posviz/_content`` everywhere else. Without it an installed posviz could build
nothing: no figure page, no docs site.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONTENT = Path(__file__).resolve().parent / "content"
PACKAGED = Path("posviz", "_content")


class BuildWithContent(build_py):
    """``build_py``, plus every Markdown file of ``content/`` under ``posviz/_content``."""

    def run(self):
        """Build the package as usual, then copy the content beside it."""
        super().run()
        if self.editable_mode:  # an editable install reads content/ where it is
            return
        if not (CONTENT / "pages").is_dir():
            raise SystemExit(f"setup.py: {CONTENT / 'pages'} is missing: the wheel needs content")
        for source in sorted(CONTENT.rglob("*.md")):
            target = Path(self.build_lib, PACKAGED, source.relative_to(CONTENT))
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target))


setup(cmdclass={"build_py": BuildWithContent})
