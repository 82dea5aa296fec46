"""The service's verdicts that rules attach: the model stage's answer (422 in either form), a
later check's exact message and its place in the service's pipeline, and the orders in which
the service meets blocks (stage E) and undefined parameter keys (check D8)."""

from __future__ import annotations

from typing import Any

from .. import model
from ..core.diagnostics import ServiceVerdict
from ..workflow.view import Block, Path, Workflow


def model_verdict(wf: Workflow, path: Path = ()) -> ServiceVerdict:
    """The service's answer to a request-model error: 422, list form on the JSON path (stage
    A5), joined string on the YAML path (stage B2)."""
    return ServiceVerdict(422, None, ("A", 5) + _flat(path) if wf.mode == "json" else ("B", 2) + _flat(path))


def service_verdict(status: int, detail: str, stage: str, check: int, *position: Any) -> ServiceVerdict:
    return ServiceVerdict(status, detail, (stage, check, *position))


def _flat(path: Path) -> tuple:
    return tuple(p if isinstance(p, int) else str(p) for p in path)


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


def _with_parameter_keys() -> frozenset[str]:
    return frozenset(tag for tag in model.BLOCK_TYPES if tag not in model.BLOCKS_WITHOUT_PARAMETER_KEYS)


_WITH_PARAMETER_KEYS = _with_parameter_keys()


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
        if b.tag == "for_loop" and wf.release.has_check("d8_loop_source"):
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


def d5_parameters(wf):
    """The parameters stage D5 processes, in order: non-context ones, the first of each key."""
    seen = set()
    for p in wf.params:
        if p.type == "context":
            continue
        if p.key is not None:
            if p.key in seen:
                continue
            seen.add(p.key)
        yield p
