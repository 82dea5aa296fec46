"""A trace as a timeline a person reads: each block in the order it started, indented under its
loop or conditional, with its iteration, its status, the rendered inputs that matter (prompt,
URL, body, code) and its output."""

from __future__ import annotations

import json
from typing import Any

MARK = {"completed": "ok", "failed": "FAILED", "terminated": "TERMINATED", "timed_out": "TIMED OUT",
        "canceled": "CANCELED", "skipped": "skipped", "running": "..."}
WIDTH = 100


def _short(value: Any, width: int = WIDTH) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 3] + "..."


def _depths(trace: list[dict[str, Any]]) -> list[int]:
    """How deep each row sits: one deeper than the latest row of its parent before it."""
    depth_of: dict[str, int] = {}
    out = []
    for row in trace:
        parent = row.get("parent")
        depth = depth_of.get(parent, -1) + 1 if parent else 0
        out.append(depth)
        depth_of[row.get("label")] = depth
    return out


def render_trace(result: dict[str, Any], inputs: list[dict[str, Any]] | None = None,
                 unstubbed: list[str] | None = None, missing_secrets: list[str] | None = None) -> str:
    name = result.get("name") or "case"
    if "http_status" in result:
        detail = (result.get("body") or {}).get("detail")
        return f"case {name}: refused: HTTP {result['http_status']}\n  {detail}\n"
    lines = [f"case {name}: {result.get('status')}"]
    if result.get("failure_reason"):
        lines.append(f"  reason: {result['failure_reason']}")
    trace = result.get("trace") or []
    for row, depth, row_inputs in zip(trace, _depths(trace), inputs or [{}] * len(trace), strict=False):
        pad = "  " * (depth + 1)
        where = f"[{row['index']}] " if row.get("index") is not None else ""
        value = f" (value {_short(row['value'], 40)})" if row.get("value") not in (None, "None") else ""
        lines.append(f"{pad}{where}{row['label']} ({row['block_type']}): {MARK.get(row['status'], row['status'])}{value}")
        for key, shown in (row_inputs or {}).items():
            if key == "loop_values":
                shown = f"{len(shown)} value(s): {_short(shown, WIDTH - 20)}"
            lines.append(f"{pad}    {key}: {_short(shown)}")
        if row.get("failure_reason"):
            lines.append(f"{pad}    reason: {_short(row['failure_reason'], 300)}")
        if row.get("output") is not None and row["block_type"] not in ("for_loop", "while_loop"):
            lines.append(f"{pad}    output: {_short(row['output'])}")
    for error in result.get("errors") or []:
        lines.append(f"  error: {error.get('error_code')}: {error.get('reasoning')}")
    if unstubbed:
        lines.append(f"  no stub, default used: {', '.join(unstubbed)}")
    if missing_secrets:
        lines.append(f"  no value in secrets:, a stand-in rendered: {', '.join(missing_secrets)}")
    return "\n".join(lines) + "\n"
