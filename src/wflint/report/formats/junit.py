"""JUnit XML for CI test reports (GitLab, Jenkins, Azure, CircleCI): one test case per file,
one ``<failure>`` per diagnostic, so a dashboard shows which workflows fail and why.

Files that were checked and are clean become passing test cases when the caller names them
(``files``); without that list only files with findings appear.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Iterable, Sequence

from ...core.diagnostics import Diagnostic
from ..links import rule_doc_url
from ..safe_text import xml_text

SUITE_NAME = "wflint"


def _failure(d: Diagnostic, docs_url: str | None = None) -> ET.Element:
    summary = f"{d.code} [{d.name}] {d.message}"
    detail = f"{d.path}:{d.line}:{d.column}: {d.code} [{d.name}] {d.severity}: {d.message}"
    if d.help:
        detail += f"\nhelp: {d.help}"
    url = rule_doc_url(d.code, d.name, docs_url)
    if url:
        detail += f"\nrule: {url}"
    el = ET.Element("failure", message=xml_text(summary), type=xml_text(d.code))
    el.text = xml_text(detail)
    return el


def render(diags: Sequence[Diagnostic], lines=None, rules=None, *, files: Iterable[str] = (),
           docs_url: str | None = None) -> str:
    by_file: dict[str, list[Diagnostic]] = {path: [] for path in files}
    for d in diags:
        by_file.setdefault(d.path, []).append(d)
    failures = len(diags)
    counts = {"tests": str(len(by_file)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", name=SUITE_NAME, time="0", **counts)
    suite = ET.SubElement(root, "testsuite", name=SUITE_NAME, skipped="0", time="0", **counts)
    for path in sorted(by_file):
        case = ET.SubElement(suite, "testcase", classname=SUITE_NAME, name=xml_text(path), time="0")
        case.extend(_failure(d, docs_url) for d in by_file[path])
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
