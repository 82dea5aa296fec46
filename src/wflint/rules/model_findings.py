"""The request-model findings (JSON Schema validation), computed once per workflow and
handed out to the rules that own their codes (WF101-WF105)."""

from __future__ import annotations

from typing import Any


from ..checks.schema_findings import Finding, findings
from ..workflow.view import Workflow
from ..checks.yaml11 import yaml11_reading
from .verdicts import model_verdict
from .wording import describe


def schema_findings(wf: Workflow) -> list[Finding]:
    """Every JSON Schema finding for this workflow, computed once."""
    cached = wf.cache.get("schema_findings")
    if cached is None:
        rel = wf.release
        cached = findings(wf.request, rel.REQUEST.name, schema_parts(wf), rel.version)
        wf.cache["schema_findings"] = cached
    return cached


def schema_parts(wf: Workflow) -> list[tuple[tuple, str, object]]:
    """(path, definition, data) for every typed block and parameter: each is validated
    against its own definition (the request itself against ``model.REQUEST``)."""
    parts: list[tuple[tuple, str, object]] = [
        (b.path, f"block.{b.tag}", {**b.data, "block_type": b.tag} if b.tag_guessed else b.data)
        for b in wf.all_blocks
        if b.tag is not None
    ]
    parts += [(p.path, f"parameter.{p.type}", p.data) for p in wf.params if p.type in wf.release.PARAMETER_TYPES]
    return parts


def yield_findings(wf: Workflow, rule: Any):
    for f in schema_findings(wf):
        if f.code != rule.CODE:
            continue
        where = describe(wf, f.path[:-1] if f.code != "WF101" else f.path)
        message = f.message if f.code != "WF101" else f"{where} is {f.message}"
        if f.code in ("WF102", "WF103", "WF105") and where != "the request":
            message = f"{message} (in {where})"
        help = f.help
        if f.code == "WF102" and wf.mode == "yaml":
            raw_reading = _yaml11_reading(wf, f)
            if raw_reading is not None:
                message += f"; YAML 1.1 reads `{raw_reading[0]}` as {raw_reading[1]}"
                help = f"quote it: '{raw_reading[0]}'"
        yield wf.diag(rule, message, f.path, key=f.key, help=help, service=_verdict(wf, f))


def _verdict(wf: Workflow, f: Finding):
    """The model stage's verdict, except where the YAML path never gets there: the service's
    sanitizer calls dict() on every parameter and block item and fails (500) on anything
    that is not a mapping (checked against the three releases)."""
    from ..core.diagnostics import ServiceVerdict

    p = f.path
    if (wf.mode == "yaml" and f.code == "WF102" and len(p) >= 2 and isinstance(p[-1], int)
            and p[-2] in ("parameters", "blocks", "loop_blocks") and not isinstance(_at(wf.request, p), dict)):
        return ServiceVerdict(500, None, ("B", 1) + tuple(x if isinstance(x, int) else str(x) for x in p))
    return model_verdict(wf, p)


def _at(data: Any, path: tuple) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _yaml11_reading(wf: Workflow, f: Finding) -> tuple[str, str] | None:
    """(raw text, reading) for a plain YAML scalar that YAML 1.1 turned into something else
    than its text (``no`` → false): the author almost always wrote the text."""
    node = wf.node(f.path, key=f.key)
    reading = yaml11_reading(node)
    return None if reading is None else (node.raw.strip(), reading)
