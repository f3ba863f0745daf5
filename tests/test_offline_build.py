"""The export's offline files: a service worker that lists every file of the site with its
sha256, a valid web app manifest, and both linked from every page (export/offline.py)."""

import hashlib
import json
import re
from xml.etree import ElementTree

from posviz.export import offline

LISTING = re.compile(r"const OFFLINE = (\{.*?\});\n")


def listing(site) -> dict:
    return json.loads(LISTING.search((site / offline.SERVICE_WORKER).read_text("utf-8")).group(1))


def test_the_service_worker_lists_every_file_with_its_sha256_and_size(built_site):
    listed = listing(built_site)
    on_disk = {
        path.relative_to(built_site).as_posix() for path in built_site.rglob("*") if path.is_file()
    }
    # Left out: the worker itself, the build's marker, and what only a file: page loads.
    left_out = {offline.SERVICE_WORKER, ".posviz-build.json"}
    file_scripts = {p for p in on_disk if p.startswith("frames/") and p.endswith(".js")}
    assert file_scripts, "the site has frames/<id>.js scripts for pages opened as files"
    assert set(listed["files"]) == on_disk - left_out - file_scripts
    for path, entry in listed["files"].items():
        data = (built_site / path).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}, path
    # The build's hash is the listing's: any file changed, another cache.
    text = json.dumps(listed["files"], sort_keys=True, separators=(",", ":"))
    assert listed["build"] == hashlib.sha256(text.encode()).hexdigest()[:16]


def test_every_page_links_the_manifest_and_the_offline_script(built_site):
    pages = sorted(built_site.glob("*.html"))
    assert pages
    script = offline.OFFLINE[0]
    for page in pages:
        head = page.read_text("utf-8").split("</head>", 1)[0]
        assert '<link rel="manifest" href="manifest.webmanifest">' in head, page.name
        assert f'<script src="{script}" defer></script>' in head, page.name
    assert (built_site / script).read_text("utf-8") == offline.OFFLINE[1]


def test_the_manifest_is_valid_and_names_files_of_the_site(built_site):
    manifest = json.loads((built_site / offline.WEB_MANIFEST).read_text("utf-8"))
    assert manifest["name"] and manifest["scope"] == "./"
    assert (built_site / manifest["start_url"]).is_file()
    for icon in manifest["icons"]:
        assert icon["type"] == "image/svg+xml" and icon["sizes"] == "any"
        root = ElementTree.parse(built_site / icon["src"]).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
