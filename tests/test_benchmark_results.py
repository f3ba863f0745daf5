"""benchmarks/common.py writes a benchmark's results as JSON, sites as their paths."""

import json
from pathlib import Path

import pytest

from benchmarks import common


def test_a_site_folder_in_the_results_is_written_as_its_path(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(common, "ROOT", tmp_path)
    monkeypatch.setattr(common, "machine", lambda: {"cores": 2})
    sites = {"before": Path("/tmp/before"), "after": tmp_path / "after"}
    path = common.write("ab", {"sites": sites, "rounds": 3})
    assert json.loads(path.read_text()) == {
        "machine": {"cores": 2},
        "sites": {"before": "/tmp/before", "after": str(tmp_path / "after")},
        "rounds": 3,
    }


def test_anything_else_that_is_not_json_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RESULTS", tmp_path)
    monkeypatch.setattr(common, "machine", lambda: {})
    with pytest.raises(TypeError, match=r"a benchmark result holds a set: \{1\}"):
        common.write("bad", {"seen": {1}})
