"""pin_scripts: every script a page loads from the site carries its sha256."""

import base64
import hashlib

import pytest

from posviz.export.adapter import PINNED_PLACEHOLDER, pin_scripts
from posviz.export.errors import BuildError

BUNDLE = "static/bokeh/bokeh-3.9.2.min.js"


def page(src: str) -> str:
    return (
        f"<head><script>const PINNED = {PINNED_PLACEHOLDER};</script>\n"
        f'<script type="text/javascript" src="{src}"></script></head>'
    )


def test_each_script_gets_the_sha256_of_its_file_and_connect_gets_the_list(tmp_path):
    (tmp_path / "static" / "bokeh").mkdir(parents=True)
    (tmp_path / BUNDLE).write_bytes(b"window.Bokeh = {};")
    (tmp_path / "figure-1.html").write_text(page(BUNDLE))
    pin_scripts(tmp_path)
    html = (tmp_path / "figure-1.html").read_text()
    digest = base64.b64encode(hashlib.sha256(b"window.Bokeh = {};").digest()).decode()
    assert f'src="{BUNDLE}" integrity="sha256-{digest}"' in html
    assert f'const PINNED = ["{BUNDLE}"];' in html


def test_a_script_the_site_lacks_fails_the_build_naming_it(tmp_path):
    (tmp_path / "figure-1.html").write_text(page("static/panel/panel.min.js"))
    with pytest.raises(BuildError, match="static/panel/panel.min.js"):
        pin_scripts(tmp_path)


def test_a_script_tag_it_cannot_pin_fails_the_build(tmp_path):
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "x.js").write_bytes(b"")
    html = page("static/x.js").replace('type="text/javascript" ', "defer ")
    (tmp_path / "figure-1.html").write_text(html)
    with pytest.raises(BuildError, match="cannot pin"):
        pin_scripts(tmp_path)
