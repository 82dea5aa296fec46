"""Output linear in the input (issue 23): a message that lists things names a bounded list,
and a report reaches standard output whole or not silently cut."""

from __future__ import annotations

import io
import sys

import pytest

from wflint.api import check_text
from wflint.report.console import write_all
from wflint.workflow.routing import route_text


def v2_unchained(n: int) -> str:
    lines = ["title: t", "workflow_definition:", "  version: 2", "  parameters: []", "  blocks:"]
    lines += [f"    - {{block_type: wait, label: b{i}, wait_sec: 1}}" for i in range(n)]
    return "\n".join(lines) + "\n"


def wf303(text: str):
    return [d for d in check_text(text, "flow.yaml") if d.code == "WF303"]


def test_wf303_names_a_bounded_list_of_starting_blocks():
    found = wf303(v2_unchained(200))
    assert len(found) == 199
    assert all("and 190 more" in d.message for d in found)
    assert max(len(d.message) for d in found) < 600


def test_wf303_report_grows_linearly():
    """Each of N findings listed all N starts: 755 KB gave a 2.6 GB report. Now the report of a
    file 8 times larger is at most about 8 times larger (9, for the longer labels)."""
    small = sum(len(d.message) for d in wf303(v2_unchained(250)))
    large = sum(len(d.message) for d in wf303(v2_unchained(2000)))
    assert large < 9 * small


def test_a_long_cycle_is_named_by_its_ends():
    text = route_text([f"b{i}" for i in range(100)])
    assert text.startswith("b0 → b1") and "… 90 more" in text and text.endswith("b99 → b0")
    assert route_text(["a", "b"]) == "a → b → a"


class PartialRaw(io.RawIOBase):
    """A file that takes at most 1,000 bytes a write (as the kernel takes at most 2 GiB)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        n = min(len(b), 1000)
        self.data += bytes(b[:n])
        return n


def test_write_all_loops_until_every_byte_is_taken():
    raw = PartialRaw()
    stream = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    write_all("é" * 5000 + "\n", stream)
    assert raw.data.decode("utf-8") == "é" * 5000 + "\n"


def test_check_report_is_not_cut_by_an_unbuffered_stdout(tmp_path, monkeypatch):
    """Under `python -u`, stdout is a text layer over a raw file: what a partial write left
    out was dropped without an error."""
    from wflint.cli import main

    flow = tmp_path / "flow.yaml"
    flow.write_text(v2_unchained(100))
    raw = PartialRaw()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))
    with pytest.raises(SystemExit) as stop:
        main(["check", "--format", "json", str(flow)], standalone_mode=False)
    assert stop.value.code == 1
    import json

    assert len(json.loads(raw.data.decode("utf-8"))) >= 99
