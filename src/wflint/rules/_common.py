"""Helpers shared by rule modules: describing places in words, the model-stage verdict, and
the schema findings computed once per workflow."""

from __future__ import annotations

from typing import Any

from .. import model
from ..diagnostics import ServiceVerdict
from ..validate import Finding, findings
from ..view import Block, Path, Workflow


def model_verdict(wf: Workflow, path: Path = ()) -> ServiceVerdict:
    """The service's answer to a request-model error: 422, list form on the JSON path (stage
    A5), joined string on the YAML path (stage B2)."""
    return ServiceVerdict(422, None, ("A", 5) + _flat(path) if wf.mode == "json" else ("B", 2) + _flat(path))


def service_verdict(status: int, detail: str, stage: str, check: int, *position: Any) -> ServiceVerdict:
    return ServiceVerdict(status, detail, (stage, check, *position))


def _flat(path: Path) -> tuple:
    return tuple(p if isinstance(p, int) else str(p) for p in path)


def block_at(wf: Workflow, path: Path) -> Block | None:
    """The innermost block containing ``path``."""
    best = None
    for b in wf.all_blocks:
        if path[: len(b.path)] == b.path and (best is None or len(b.path) > len(best.path)):
            best = b
    return best


def block_name(b: Block) -> str:
    kind = f"{b.tag} block" if b.tag else "block"
    return f"{kind} '{b.label}'" if b.label is not None else f"{kind} #{b.path[-1] + 1}"


def describe(wf: Workflow, path: Path) -> str:
    """A newcomer-friendly name for the object at ``path``: "wait block 'a'", "parameter 'k'"."""
    b = block_at(wf, path)
    if b is not None:
        rest = path[len(b.path):]
        if rest[:1] == ("branch_conditions",) and len(rest) >= 2:
            return f"branch {rest[1] + 1} of {block_name(b)}"
        if rest[:1] == ("condition",):
            return f"the condition of {block_name(b)}"
        return block_name(b)
    if path[:2] == ("workflow_definition", "parameters") and len(path) >= 3:
        p = next((p for p in wf.params if p.path == path[:3]), None)
        if p is not None and p.key:
            return f"parameter '{p.key}'"
        return f"parameter #{path[2] + 1}"
    if path[:2] == ("workflow_definition", "retry_policy"):
        return "the retry policy"
    if path[:1] == ("workflow_definition",):
        return "the workflow definition"
    return "the request"


def schema_findings(wf: Workflow) -> list[Finding]:
    """Every JSON Schema finding for this workflow, computed once."""
    cached = wf.cache.get("schema_findings")
    if cached is None:
        parts = [
            (b.path, f"block.{b.tag}", {**b.data, "block_type": b.tag} if b.tag_guessed else b.data)
            for b in wf.all_blocks
            if b.tag is not None
        ]
        parts += [(p.path, f"parameter.{p.type}", p.data) for p in wf.params if p.type in model.PARAMETER_TYPES]
        cached = findings(wf.request, model.REQUEST.name, parts)
        wf.cache["schema_findings"] = cached
    return cached


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
        yield wf.diag(rule, message, f.path, key=f.key, help=help, service=model_verdict(wf, f.path))


def _yaml11_reading(wf: Workflow, f: Finding) -> tuple[str, str] | None:
    """(raw text, reading) for a plain YAML scalar that YAML 1.1 turned into something else
    than its text (``no`` → false): the author almost always wrote the text."""
    from .wf004_yaml11_ambiguous_value import yaml11_reading

    node = wf.node(f.path, key=f.key)
    reading = yaml11_reading(node)
    return None if reading is None else (node.raw.strip(), reading)


def e_order(wf: Workflow, block: Block) -> int:
    """Where stage E meets ``block``: top-level blocks in order, a loop's body converted
    (recursively) before the loop itself, so the first failure in that order wins (§6.6)."""
    order = wf.cache.get("e_order")
    if order is None:
        order = {}

        def post(blocks: list[Block]) -> None:
            for b in blocks:
                post(b.children)
                order[id(b)] = len(order)

        post(wf.blocks)
        wf.cache["e_order"] = order
    return order.get(id(block), 0)


def top_labels(wf: Workflow) -> list[str]:
    return [b.label for b in wf.blocks if b.label is not None]


def original_value(wf: Workflow, path: Path) -> Any:
    """The value as written in the file (before the YAML-path sanitizer renamed it)."""
    node = wf.node(path)
    if node is not None and node.kind == "scalar" and wf.root is not None:
        return node.value
    return None


def d8_lines(wf: Workflow) -> list[tuple[Block, list[str]]]:
    """Blocks with undefined ``parameter_keys`` entries or ``loop_over_parameter_key``, in the
    order the service lists them (a loop before its body), with the undefined keys."""
    known = wf.known_keys
    out: list[tuple[Block, list[str]]] = []
    for b in wf.all_blocks:
        missing: list[str] = []
        keys = b.data.get("parameter_keys") if b.tag in _WITH_PARAMETER_KEYS else None
        if isinstance(keys, list):
            missing += [k for k in keys if isinstance(k, str) and k not in known]
        if b.tag == "for_loop":
            src = b.data.get("loop_over_parameter_key")
            if isinstance(src, str) and src and src not in known:
                missing.append(src)
        if missing:
            out.append((b, missing))
    return out


def d8_detail(wf: Workflow) -> str:
    lines = ["Workflow definition has blocks that reference undefined parameters:"]
    for b, missing in d8_lines(wf):
        lines.append(f"  - Block '{b.label}' references undefined parameter(s): " + ", ".join(f"'{k}'" for k in missing))
    lines.append("")
    lines.append("Make sure to define all parameters in the workflow parameters list before using them in blocks.")
    return "\n".join(lines)


def close_match(word: str, candidates: Any) -> str | None:
    import difflib

    found = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def suggest(word: str, candidates: Any) -> str | None:
    m = close_match(word, candidates)
    return f"did you mean '{m}'?" if m else None


def _with_parameter_keys() -> frozenset[str]:
    return frozenset(tag for tag in model.BLOCK_TYPES if tag not in model.BLOCKS_WITHOUT_PARAMETER_KEYS)


_WITH_PARAMETER_KEYS = _with_parameter_keys()


def scopes(wf: Workflow) -> list[tuple[Block | None, list[Block]]]:
    """Graph scopes in the order stage F validates them: the top level, then every loop body
    (depth first)."""
    out: list[tuple[Block | None, list[Block]]] = [(None, wf.blocks)]
    for b in wf.all_blocks:
        if b.is_loop:
            out.append((b, b.children))
    return out


def scope_index(wf: Workflow, loop: Block | None) -> int:
    for i, (owner, _) in enumerate(scopes(wf)):
        if owner is loop:
            return i
    return 0


def graph_findings(wf: Workflow, kind: str):
    """The stage-F findings of one kind, as (finding, scope members by label, verdict): the
    verdict carries the service's message and its place in the pipeline (scope, step, rank)."""
    from .. import graph

    all_scopes = scopes(wf)
    rank = 0
    for position, finding in graph.workflow_findings(wf):
        if finding.kind != kind:
            continue
        rank += 1
        _, members = all_scopes[position]
        by_label = {b.label: b for b in members if b.label is not None}
        yield finding, by_label, service_verdict(422, finding.message, "F", position, graph.STEP[kind], rank)
