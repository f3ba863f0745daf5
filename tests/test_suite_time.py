"""benchmarks/suite_time.py reads a JUnit report as pytest writes it: sums per module,
the browser tier's share, the slowest tests, the balance of the processes."""

import pytest

from benchmarks.suite_time import ReportError, module_of, tally

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="pytest" tests="5" time="10.0">
<testcase classname="tests.test_maths" name="test_a" time="1.5" />
<testcase classname="tests.test_maths" name="test_b[2]" time="0.5" />
<testcase classname="tests.ui.test_frames" name="test_c" time="12.0" />
<testcase classname="tests.ui.test_frames.TestGroup" name="test_d" time="4.0" />
<testcase classname="tests.test_build" name="test_e" time="2.0" />
</testsuite></testsuites>"""


def test_modules_are_named_by_their_file_whatever_the_class():
    assert module_of("tests.ui.test_frames") == "tests/ui/test_frames.py"
    assert module_of("tests.ui.test_frames.TestGroup") == "tests/ui/test_frames.py"
    assert module_of("tests.test_maths") == "tests/test_maths.py"


def test_a_report_is_summed_per_module_and_tier(tmp_path):
    report = tmp_path / "junit.xml"
    report.write_text(REPORT, "utf-8")
    found = tally(report)
    cases = [("tests/test_maths.py", 1.5), ("tests/test_maths.py", 0.5),
             ("tests/ui/test_frames.py", 12.0), ("tests/ui/test_frames.py", 4.0),
             ("tests/test_build.py", 2.0)]  # fmt: skip
    expected: dict[str, list] = {}
    for module, seconds in cases:  # the sums, by an explicit loop
        expected.setdefault(module, [0, 0.0])
        expected[module][0] += 1
        expected[module][1] += seconds
    assert {m["module"]: [m["tests"], m["seconds"]] for m in found["modules"]} == expected
    assert [m["module"] for m in found["modules"]] == [
        "tests/ui/test_frames.py", "tests/test_maths.py", "tests/test_build.py"
    ]  # fmt: skip
    assert (found["tests"], found["test_seconds"], found["wall_seconds"]) == (5, 20.0, 10.0)
    assert found["browser_seconds"] == 16.0 and found["browser_share"] == 0.8
    assert found["slowest"][0] == {"test": "tests/ui/test_frames.py::test_c", "seconds": 12.0}


def test_a_missing_or_foreign_report_is_one_line_naming_it(tmp_path):
    with pytest.raises(ReportError, match=r"junit\.xml: no such report; ./dev test writes"):
        tally(tmp_path / "junit.xml")
    (tmp_path / "notes.txt").write_text("not xml", "utf-8")
    with pytest.raises(ReportError, match=r"notes\.txt: not a JUnit report \(syntax error"):
        tally(tmp_path / "notes.txt")
