"""The papercuts a new team met on its first day (issue 22), each pinned: the severity in words
in `full`, the `docs-url` setting in every format that links, `--show-settings` with every
setting and its source, plain text from `wflint rule`, non-empty WF401 ranges, completion that
never offers a block its own label, and the facts the documentation states (Neovim versions,
the YAML 1.1 reading of times, the extra that holds `build`)."""

from __future__ import annotations

import json
import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from wflint.cli import main

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "fixtures" / "rules"
DOCS = ROOT / "docs"
#: an error (WF101) and a warning (WF213) in one file
TWO_SEVERITIES = """title: t
workflow_definition:
  parameters:
    - {parameter_type: workflow, key: unused, workflow_parameter_type: string}
  blocks:
    - block_type: navigation
      label: open
      url: https://example.com
"""


def run(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, **kwargs)


# ------------------------------------------------------------------ full: severity in words


def test_full_says_error_or_warning_on_each_finding_without_colour(tmp_path):
    flow = tmp_path / "flow.yaml"
    flow.write_text(TWO_SEVERITIES)
    r = run("check", "--color", "never", str(flow))
    heads = [line for line in r.stdout.splitlines() if line.startswith(str(flow))]
    assert len(heads) == 2, r.stdout
    assert any(re.search(r": WF1\d\d \[[a-z-]+\] error: ", h) for h in heads), heads
    assert any(re.search(r": WF213 \[unused-parameter\] warning: ", h) for h in heads), heads
    assert "\x1b[" not in r.stdout


# ------------------------------------------------------------------ docs-url


DOCS_URL = "https://wflint.docs.example/rules/"
OTHER_URL = "https://elsewhere.example/r.html"


def _links(fmt: str, text: str) -> list[str]:
    if fmt == "sarif":
        return [r["helpUri"] for r in json.loads(text)["runs"][0]["tool"]["driver"]["rules"]]
    if fmt == "json":
        return [d["url"] for d in json.loads(text)]
    if fmt == "gitlab":
        return [re.search(r"\((\S+)\)$", i["content"]["body"]).group(1) for i in json.loads(text)]
    if fmt == "junit":
        return [re.search(r"^rule: (\S+)$", f.text, re.M).group(1) for f in ET.fromstring(text.split("\n", 1)[1]).iter("failure")]
    raise AssertionError(fmt)


@pytest.mark.parametrize("fmt", ["sarif", "json", "gitlab", "junit"])
def test_docs_url_from_the_config_file_and_the_command_line_links_every_rule(tmp_path, monkeypatch, fmt):
    flow = tmp_path / "flow.yaml"
    flow.write_text(TWO_SEVERITIES)
    (tmp_path / ".wflint.toml").write_text(f'docs-url = "{DOCS_URL}"\n')
    monkeypatch.chdir(tmp_path)
    links = _links(fmt, run("check", "--format", fmt, "flow.yaml").stdout)
    assert links and all(link.startswith(DOCS_URL + "#wf") for link in links), links
    assert f"{DOCS_URL}#wf213-unused-parameter" in links
    # the command line wins over the file
    links = _links(fmt, run("check", "--format", fmt, "--docs-url", OTHER_URL, "flow.yaml").stdout)
    assert links and all(link.startswith(OTHER_URL + "#wf") for link in links), links


def test_without_docs_url_rules_link_to_the_repository_docs_as_before(tmp_path):
    from wflint.report.links import repository_url

    flow = tmp_path / "flow.yaml"
    flow.write_text(TWO_SEVERITIES)
    repo = repository_url()
    links = _links("json", run("check", "--format", "json", str(flow)).stdout)
    if repo is None:
        assert links == []
    else:
        assert all(link.startswith(f"{repo}/blob/main/docs/rules.md#wf") for link in links)


# ------------------------------------------------------------------ --show-settings


def test_show_settings_prints_every_setting_with_where_it_came_from(tmp_path, monkeypatch):
    from wflint.project.config import _KEYS
    from wflint.document.limits import Limits
    from wflint.model.releases import NEWEST
    from wflint.core.records import field_names

    cfg = tmp_path / ".wflint.toml"
    cfg.write_text('exclude = ["drafts/"]\ntarget-version = "1.0.55"\n[limits]\nblocks = 20000\n')
    monkeypatch.chdir(tmp_path)
    r = run("check", "--show-settings", "--limit", "depth=40", "--fail-level", "warning")
    assert r.exit_code == 0, r.output
    out = r.stdout
    settings = {}
    for line in out.splitlines():
        m = re.match(r"^(\[[a-z-]+\]|[\w\"./*-]+) = (.*?)\s+# (.+)$", line) or re.match(r"^(\[[a-z-]+\])\s+# (.+)$", line)
        if m and m.lastindex == 3:
            settings[m.group(1)] = (m.group(2), m.group(3))
    for key in _KEYS - {"per-file-ignores", "severity", "limits"}:
        assert key in settings, (key, out)
    for name in field_names(Limits):
        assert name.replace("_", "-") in settings, (name, out)
    assert settings["exclude"] == ('["drafts/"]', str(cfg))
    assert settings["target-version"] == ('"1.0.55"', str(cfg))
    assert settings["blocks"] == ("20000", str(cfg))
    assert settings["depth"] == ("40", "command line (--limit)")
    assert settings["fail-level"] == ('"warning"', "command line (--fail-level)")
    assert settings["mode"] == ('"auto"', "default")
    assert settings["nodes"] == ("500000", "default")
    # with nothing set, the release in force is named, with why
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    (empty / ".wflint.toml").write_text("")
    r = run("check", "--show-settings")
    assert re.search(rf'^target-version = "{re.escape(NEWEST)}"\s+# default \(the newest modelled release; no skyvern pin found in the repository\)$',
                     r.stdout, re.M), r.stdout
    assert re.search(r"^\[severity\]\s+# default$", r.stdout, re.M)


def test_show_settings_output_is_toml_a_config_file_can_start_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".wflint.toml").write_text('[severity]\nWF104 = "error"\n')
    text = run("check", "--show-settings").stdout
    data = tomllib.loads(text)
    assert data["severity"] == {"WF104": "error"} and data["limits"]["blocks"] == 5000


# ------------------------------------------------------------------ wflint rule


@pytest.mark.parametrize("args", [("rule", "WF004"), ("rule", "WF502"), ("rule", "--all")])
def test_wflint_rule_prints_plain_text_not_restructuredtext(args):
    r = run(*args)
    assert r.exit_code == 0
    assert "``" not in r.stdout and "**" not in r.stdout and "::\n" not in r.stdout, r.stdout
    if args[1] == "WF004":
        assert "'yes', 'no', 'on' and\n'off'" in r.stdout or "'yes', 'no', 'on'" in r.stdout
        assert "Bad:\n" in r.stdout  # the example's heading, its indented example kept


def test_docs_rules_md_keeps_the_markdown():
    assert "``yes``" in (DOCS / "rules.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ WF401 ranges


@pytest.mark.parametrize("path", sorted(p for p in (RULES / "WF401").glob("bad_*") if p.suffix != ".expected"), ids=lambda p: p.name)
def test_wf401_ranges_are_not_empty_in_github_sarif_and_json(path):
    (d,) = [d for d in json.loads(run("check", "--format", "json", str(path)).stdout) if d["code"] == "WF401"]
    assert (d["end_line"], d["end_column"]) > (d["line"], d["column"]), d
    sarif = json.loads(run("check", "--format", "sarif", str(path)).stdout)
    (region,) = [r["locations"][0]["physicalLocation"]["region"] for r in sarif["runs"][0]["results"] if r["ruleId"] == "WF401"]
    assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])
    (line,) = [x for x in run("check", "--format", "github", str(path)).stdout.splitlines() if "WF401" in x]
    props = dict(p.split("=", 1) for p in line.split(" ", 1)[1].split("::")[0].split(","))
    assert (int(props["endLine"]), int(props["endColumn"])) > (int(props["line"]), int(props["col"]))


def test_wf401_range_covers_the_rest_of_the_broken_tag():
    path = RULES / "WF401" / "bad_json_escapes.json"
    (d,) = json.loads(run("check", "--format", "json", str(path)).stdout)
    line = path.read_text().splitlines()[d["line"] - 1]
    assert line[d["column"] - 1:d["end_column"] - 1] == ") }}"


# ------------------------------------------------------------------ completion


def test_completion_after_an_empty_next_block_label_never_offers_the_block_itself():
    pytest.importorskip("pygls")
    from wflint.lsp.completion import complete
    from wflint.lsp.documents import Document

    text = ("title: t\nworkflow_definition:\n  version: 2\n  parameters: []\n  blocks:\n"
            "    - block_type: wait\n      label: first\n      wait_sec: 1\n      next_block_label: \n"
            "    - block_type: wait\n      label: second\n      wait_sec: 1\n")
    for typed in ("next_block_label: ", "next_block_label:"):
        t = text.replace("next_block_label: \n", typed + "\n")
        doc = Document("file:///w.yaml", "/w.yaml", t)
        labels = [i.label for i in complete(doc, t.index(typed) + len(typed)).items]
        assert labels == ["second"], (typed, labels)


# ------------------------------------------------------------------ what the docs state


def test_the_yaml_11_sentence_names_only_values_pyyaml_does_not_read_as_strings():
    text = (DOCS / "editors.md").read_text(encoding="utf-8")
    sentence = re.search(r"the service reads YAML 1\.1, where (.+?) are\s+not strings", text, re.S)
    assert sentence, "the editors page states which plain values YAML 1.1 reads as other types"
    values = re.findall(r"`([^`]+)`", sentence.group(1))
    assert values
    for v in values:
        assert not isinstance(yaml.safe_load(f"a: {v}")["a"], str), v  # PyYAML: what the service runs
    # and the counter-example the page gives stays a string
    for v in re.findall(r"`([^`]+)` stays a string", text):
        assert isinstance(yaml.safe_load(f"a: {v}")["a"], str), v


def test_the_neovim_snippets_say_which_versions_they_need():
    text = (DOCS / "editors.md").read_text(encoding="utf-8")
    first = text.index('vim.lsp.config("wflint"')
    assert "Neovim 0.11" in text[text.rfind("```", 0, first) - 400:first]
    older = text.index('require("lspconfig.configs")')
    before = text[text.rfind("```", 0, older) - 500:older]
    assert "v0.1.6" in before and "0.7" in before


def test_python_m_build_is_preceded_by_the_extra_that_installs_build():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    uses = [(p, m) for p in pages for m in re.finditer(r"python -m build", p.read_text(encoding="utf-8"))]
    assert uses, "the docs say how to build the package"
    for page, m in uses:
        before = page.read_text(encoding="utf-8")[max(0, m.start() - 300):m.start()]
        named = re.findall(r"\.\[(\w+)\]", before)
        assert named, (page, "python -m build without the extra that installs build")
        assert any(re.match(r"build\b", dep) for dep in extras[named[-1]]), (named[-1], extras[named[-1]])


def test_the_version_the_changelog_and_the_pinned_rev_agree():
    from readme_snippets import code_blocks

    import wflint

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert wflint.__version__ == version
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d\d-\d\d$", changelog, re.M)
    assert releases and releases[0] == version  # Keep a Changelog: the newest release first, dated
    assert "## [Unreleased]" in changelog and f"[{version}]: " in changelog
    (hook,) = [b for b in code_blocks("Add it to your repository", "yaml") if "repos:" in b]
    assert yaml.safe_load(hook)["repos"][0]["rev"] == f"v{version}"
