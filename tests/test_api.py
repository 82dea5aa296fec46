"""The library API: check_text, check_paths (serial and parallel), evaluate."""

from __future__ import annotations

import shutil
from pathlib import Path

from wflint import api
from wflint.project.config import Config
from wflint.core.diagnostics import finalize

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "fixtures" / "rules"


def test_check_text_reports_positions_and_codes():
    text = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a, wait_sec: 0}\n"
    diags = api.check_text(text, path="flow.yaml")
    assert [(d.code, d.line) for d in diags] == [("WF105", 5)]
    assert diags[0].service is not None and diags[0].service.status == 422


def test_check_text_format_override_reads_json_as_json():
    text = '{"title": "t", "workflow_definition": {"parameters": [], "blocks": [{"block_type": "wait", "label": "my-w", "wait_sec": 1}]}}'
    as_json = api.check_text(text, path="<stdin>", fmt="json")
    assert [d.severity for d in as_json if d.code == "WF106"] == ["error"]


def test_parallel_run_equals_serial_run(tmp_path):
    sources = sorted(RULES.rglob("bad_*.yaml"))[:20] + sorted(RULES.rglob("bad_*.json"))[:20]
    for i in range(2):
        for src in sources:
            dest = tmp_path / f"{i}_{src.parent.name}_{src.name}"
            shutil.copy(src, dest)
    assert len(list(tmp_path.iterdir())) >= api.PARALLEL_THRESHOLD
    serial = api.check_paths([tmp_path], Config(), jobs=1)
    parallel = api.check_paths([tmp_path], Config(), jobs=2)
    assert serial.files_checked == parallel.files_checked > 0
    assert finalize(serial.diagnostics) == finalize(parallel.diagnostics)


def test_evaluate_gives_the_service_order():
    # an action without a goal (block 1) and wait_sec 0 (block 2): the action error wins (§6.11)
    request = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "action", "label": "a"},
        {"block_type": "wait", "label": "w", "wait_sec": 0},
    ]}}
    first = api.evaluate(request).rejections[0]
    assert (first.status, first.detail) == (422, "Action block 'a' requires navigation_goal")


def test_evaluate_loop_child_beats_loop():
    request = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "for_loop", "label": "l", "loop_blocks": [{"block_type": "wait", "label": "w", "wait_sec": 0}]},
    ]}}
    first = api.evaluate(request).rejections[0]
    assert first.detail.startswith("Invalid wait time 0 for wait block 'w'")


def test_evaluate_context_error_beats_parameter_keys_error():
    request = {"title": "t", "workflow_definition": {"parameters": [
        {"parameter_type": "context", "key": "c", "source_parameter_key": "nope"}], "blocks": [
        {"block_type": "task", "label": "t", "parameter_keys": ["missing"]}]}}
    first = api.evaluate(request).rejections[0]
    assert first.detail == "Source parameter key nope for context parameter c does not exist."


def test_evaluate_yaml_mode_sanitizes():
    request = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "wait", "label": "my-wait", "wait_sec": 1}]}}
    assert api.evaluate(request, mode="json").rejections
    ev = api.evaluate(request, mode="yaml")
    assert not ev.rejections
    assert ev.workflow.blocks[0].label == "my_wait"
