"""Reading what a built site's scripts carry."""

import json
from pathlib import Path


def worker_site(site: Path) -> dict:
    """The settings the build wrote into ``posviz-worker.js`` (its ``const SITE = {...}``)."""
    worker = (site / "posviz-worker.js").read_text("utf-8")
    found, _ = json.JSONDecoder().raw_decode(worker.split("const SITE = ", 1)[1])
    return found
