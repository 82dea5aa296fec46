"""``wflint test`` results in each format: ``text`` (like pytest: dots, then each failure with
what was expected and the trace excerpt found), ``json``, ``junit`` (one test case per case) and
``github`` (workflow commands that annotate the test file in a pull request)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..engine import json_values
from ..report.safe_text import printable, xml_text
from .suite import CaseResult, SuiteResult


def _case_text(case: CaseResult) -> str:
    if case.error:
        return case.error
    return "\n".join(f.text() for f in case.failures)


def _coverage_lines(suite: SuiteResult) -> list[str]:
    lines = ["", "coverage"]
    for workflow, cov in suite.coverage.items():
        c = cov.counts()
        lines.append(f"  {workflow}: blocks {c['blocks_hit']}/{c['blocks']}, branches {c['branches_hit']}/{c['branches']}"
                     f" ({cov.cases} case{'s' if cov.cases != 1 else ''})")
        if cov.untested_blocks:
            lines.append(f"    untested blocks: {', '.join(cov.untested_blocks)}")
        for label, _i, name in cov.untested_branches:
            lines.append(f"    untested branch: {label} {name}")
    return lines


def text(suite: SuiteResult, *, coverage: bool = False) -> str:
    lines: list[str] = []
    by_file: dict[str, list[CaseResult]] = {}
    for case in suite.cases:
        by_file.setdefault(case.test_file, []).append(case)
    for test_file, cases in by_file.items():
        marks = "".join("." if c.passed else ("E" if c.error else "F") for c in cases)
        lines.append(f"{printable(test_file)} {marks}")
    if suite.failed:
        lines.append("")
        lines.append("=" * 30 + " FAILURES " + "=" * 30)
        for case in suite.failed:
            lines.append(f"___ {printable(case.node_id)} ___")
            lines.extend(printable(line, keep_tabs=True) for line in _case_text(case).splitlines())
            if case.result is not None and "trace" in case.result:
                path = " -> ".join(str(r.get("label")) for r in case.result["trace"])
                lines.append(f"run: {case.result.get('status')}"
                             + (f" ({case.result.get('failure_reason')})" if case.result.get("failure_reason") else ""))
                lines.append(f"path: {printable(path)}")
            lines.append("")
    if coverage:
        lines.extend(_coverage_lines(suite))
    lines.append(summary(suite))
    return "\n".join(lines) + "\n"


def summary(suite: SuiteResult) -> str:
    failed = sum(1 for c in suite.cases if c.failures and not c.error)
    errors = sum(1 for c in suite.cases if c.error)
    passed = len(suite.cases) - failed - errors
    parts = [f"{failed} failed"] if failed else []
    parts.append(f"{passed} passed")
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if suite.deselected:
        parts.append(f"{suite.deselected} deselected")
    return f"{', '.join(parts)} in {suite.seconds:.2f}s"


def as_json(suite: SuiteResult, *, coverage: bool = False) -> str:
    data = {
        "summary": {"cases": len(suite.cases), "failed": len(suite.failed), "deselected": suite.deselected,
                    "seconds": round(suite.seconds, 3)},
        "cases": [{
            "test_file": c.test_file, "workflow": c.workflow, "name": c.name, "passed": c.passed,
            "error": c.error,
            "failures": [{"what": f.what, "expected": f.expected, "actual": f.actual} for f in c.failures],
            "status": (c.result or {}).get("status"), "path": [r.get("label") for r in (c.result or {}).get("trace") or []],
        } for c in suite.cases],
    }
    if coverage:
        data["coverage"] = {path: cov.as_dict() for path, cov in suite.coverage.items()}
    return json_values.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n"


def junit(suite: SuiteResult) -> str:
    errors = sum(1 for c in suite.cases if c.error)
    failures = len(suite.failed) - errors
    counts = {"tests": str(len(suite.cases)), "failures": str(failures), "errors": str(errors)}
    root = ET.Element("testsuites", name="wflint test", time=f"{suite.seconds:.3f}", **counts)
    by_file: dict[str, list[CaseResult]] = {}
    for case in suite.cases:
        by_file.setdefault(case.test_file, []).append(case)
    for test_file, cases in by_file.items():
        n_err = sum(1 for c in cases if c.error)
        n_fail = sum(1 for c in cases if c.failures and not c.error)
        el = ET.SubElement(root, "testsuite", name=xml_text(test_file), tests=str(len(cases)), failures=str(n_fail),
                           errors=str(n_err), skipped="0", time=f"{sum(c.seconds for c in cases):.3f}")
        for case in cases:
            tc = ET.SubElement(el, "testcase", classname=xml_text(test_file), name=xml_text(case.name),
                               time=f"{case.seconds:.3f}")
            if case.error:
                err = ET.SubElement(tc, "error", message=xml_text(case.error.splitlines()[0]), type="error")
                err.text = xml_text(case.error)
            elif case.failures:
                failure = ET.SubElement(tc, "failure", message=xml_text(case.failures[0].what), type="expectation")
                failure.text = xml_text(_case_text(case))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _gh_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def github(suite: SuiteResult) -> str:
    lines = []
    for case in suite.failed:
        title = f"wflint test: {case.name}"
        lines.append(f"::error file={_gh_prop(case.test_file)},title={_gh_prop(title)}::{_gh_data(_case_text(case))}")
    lines.append(summary(suite))
    return "\n".join(lines) + "\n"


FORMATS = {"text": text, "json": as_json, "junit": lambda s, coverage=False: junit(s),
           "github": lambda s, coverage=False: github(s)}
