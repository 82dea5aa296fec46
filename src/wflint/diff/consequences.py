"""What a change does, beyond what it edits: findings it introduces and fixes (judged at the
target release), references it leaves dangling, and, for every test case beside the workflow,
whether the case now takes another path, ends in another status or gives other outputs (each
case simulated on both versions, as ``wflint test`` runs it).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..checks.template_sites import reads
from ..core.diagnostics import Diagnostic
from ..simulate.expect import judge
from ..simulate.loading import LoadedWorkflow
from ..simulate.runs import run_case
from ..workflow.view import Workflow
from .structure import Structure


# --------------------------------------------------------------------------- findings


def _finding_key(d: Diagnostic, names: dict[str, str] | None = None) -> tuple[str, str]:
    message = d.message
    for was, now in (names or {}).items():
        message = message.replace(f"'{was}'", f"'{now}'")  # messages quote the labels they name
    return d.code, message


def findings_delta(old: list[Diagnostic], new: list[Diagnostic],
                   names: dict[str, str] | None = None) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(introduced, fixed): findings compared by rule and message, not position (a block that
    moved keeps its findings), the old messages read through ``names`` (renamed labels and
    parameter keys, old -> new)."""
    before = Counter(_finding_key(d, names) for d in old)
    after = Counter(_finding_key(d) for d in new)
    introduced, fixed = [], []
    seen: Counter = Counter()
    for d in new:
        key = _finding_key(d)
        seen[("n",) + key] += 1
        if seen[("n",) + key] > before[key]:
            introduced.append(d)
    for d in old:
        key = _finding_key(d, names)
        seen[("o",) + key] += 1
        if seen[("o",) + key] > after[key]:
            fixed.append(d)
    return introduced, fixed


# --------------------------------------------------------------------------- dangling references


@dataclass
class Dangling:
    #: the block (or "the workflow") that still refers to what is gone
    where: str
    #: the field holding the reference
    field: str
    #: the name it refers to
    name: str
    #: what became of it: "block X was removed", "parameter K was removed", "block X was renamed to Y"
    why: str


def dangling(old: Workflow, new: Workflow, structure: Structure) -> list[Dangling]:
    """References in the new version to a block, block output or parameter that the old
    version had and the new one has not."""
    new_labels = set(new.labels)
    new_keys = set(new.param_keys)
    gone: dict[str, str] = {}
    for label in old.labels:
        if label in new_labels:
            continue
        renamed = structure.renames.get(label)
        why = f"block {label} was renamed to {renamed}" if renamed else f"block {label} was removed"
        gone[label] = why
        gone[f"{label}_output"] = why
    for key in old.param_keys:
        if key not in new_keys and key not in new_labels and key not in new.output_keys:
            renamed = structure.param_renames.get(key)
            gone.setdefault(key, f"parameter {key} was renamed to {renamed}" if renamed else f"parameter {key} was removed")
    if not gone:
        return []
    out: list[Dangling] = []
    for b in new.all_blocks:
        where = b.label or "(a block without a label)"
        refs: list[tuple[str, Any]] = [("next_block_label", b.data.get("next_block_label"))]
        branches = b.data.get("branch_conditions")
        if isinstance(branches, list):
            refs += [(f"branch_conditions[{i}].next_block_label", br.get("next_block_label"))
                     for i, br in enumerate(branches) if isinstance(br, dict)]
        keys = b.data.get("parameter_keys")
        if isinstance(keys, list):
            refs += [("parameter_keys", k) for k in keys]
        refs.append(("loop_over_parameter_key", b.data.get("loop_over_parameter_key")))
        out += [Dangling(where, f, name, gone[name]) for f, name in refs if isinstance(name, str) and name in gone]
    fin = new.finally_label
    if fin in gone:
        out.append(Dangling("the workflow", "finally_block_label", fin, gone[fin]))
    seen: set[tuple[str, str, str]] = set()
    for site, read in reads(new):
        if read.name not in gone:
            continue
        where = site.block.label if site.block is not None and site.block.label else "the workflow"
        key = (where, site.field, read.name)
        if key not in seen:
            seen.add(key)
            out.append(Dangling(where, site.field + " (template)", read.name, gone[read.name]))
    return out


# --------------------------------------------------------------------------- test cases


@dataclass
class Outcome:
    """How one case ends on one version."""

    #: labels in the order they ran (empty when the service refuses the workflow)
    path: list[str] = field(default_factory=list)
    #: the run's status, or "refused (HTTP 400)" when no run can start
    status: str = ""
    outputs: Any = None
    #: the case's expectations hold
    passed: bool = True
    #: the case could not run (an internal error)
    error: str | None = None


@dataclass
class CaseChange:
    name: str
    old: Outcome
    new: Outcome

    @property
    def path_changed(self) -> bool:
        return self.old.path != self.new.path

    @property
    def status_changed(self) -> bool:
        return self.old.status != self.new.status

    @property
    def outputs_changed(self) -> bool:
        """Both versions ran and gave other outputs (a refused run has none: its status says it)."""
        ran = not self.old.status.startswith("refused") and not self.new.status.startswith("refused")
        return ran and self.old.outputs != self.new.outputs

    @property
    def changed(self) -> bool:
        return (self.path_changed or self.status_changed or self.outputs_changed or self.old.passed != self.new.passed
                or self.old.error != self.new.error)

    @property
    def changed_outputs(self) -> list[str]:
        a = self.old.outputs if isinstance(self.old.outputs, dict) else {}
        b = self.new.outputs if isinstance(self.new.outputs, dict) else {}
        return [k for k in list(a) + [k for k in b if k not in a] if a.get(k) != b.get(k)]


_RUN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:wr|wpid|tsk|o|wfr)_[0-9]{6,}")


def without_run_ids(value: Any) -> Any:
    """``value`` with the identifiers each run makes afresh (branch ids, run ids) masked: two
    runs of one case differ in them and in nothing else."""
    if isinstance(value, dict):
        if "branch_taken" in value and "evaluations" in value:
            # a conditional's output also spells out every branch it weighed (their
            # expressions, indexes, targets): the branch it took is what a run's route shows
            return {"branch_taken": value.get("branch_taken")}
        return {k: without_run_ids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_run_ids(v) for v in value]
    if isinstance(value, str):
        return _RUN_ID.sub("<id>", value)
    return value


def run_outcome(workflow: LoadedWorkflow, case: dict[str, Any], network: bool) -> Outcome:
    stub = {k: v for k, v in case.items() if k not in ("expect", "network")}
    refusal = workflow.refusal()
    try:
        if refusal:
            result, inputs = {"name": case["name"], **refusal}, []
        else:
            result, inputs, _ = run_case(workflow.request, stub, network=network)
    except Exception as exc:  # noqa: BLE001 - one broken case must not hide the others
        return Outcome(status="error", passed=False, error=f"internal error: {type(exc).__name__}: {exc}")
    passed = not judge(case.get("expect") or {}, result, inputs)
    if "http_status" in result:
        return Outcome([], f"refused (HTTP {result['http_status']})", None, passed)
    return Outcome([str(row.get("label")) for row in result.get("trace") or []], str(result.get("status")),
                   without_run_ids(result.get("outputs")), passed)


def renamed(outcome: Outcome, renames: dict[str, str]) -> Outcome:
    """An old version's outcome in the new version's labels: a block that was only renamed
    runs on the same path, and its output is the same output."""
    outputs = outcome.outputs
    if isinstance(outputs, dict) and renames:
        suffix = "_output"
        outputs = {(renames.get(k[: -len(suffix)], k[: -len(suffix)]) + suffix if k.endswith(suffix) else k):
                   ({"branch_taken": renames.get(v["branch_taken"], v["branch_taken"])}
                    if isinstance(v, dict) and set(v) == {"branch_taken"} and isinstance(v["branch_taken"], str) else v)
                   for k, v in outputs.items()}
    return Outcome([renames.get(x, x) for x in outcome.path], outcome.status, outputs, outcome.passed, outcome.error)


def case_changes(old: LoadedWorkflow | None, new: LoadedWorkflow | None, cases: list[dict[str, Any]],
                 file_network: bool | None, renames: dict[str, str] | None = None) -> list[CaseChange]:
    """Every case run on both versions (a missing version: a case that cannot run there); the
    old outcome is read through ``renames`` (old label -> new label)."""
    out = []
    renames = {a: b for a, b in (renames or {}).items() if a != b}
    for case in cases:
        network = case.get("network") if isinstance(case.get("network"), bool) else bool(file_network)
        missing = Outcome(status="no workflow", passed=False)
        before = renamed(run_outcome(old, case, network), renames) if old is not None else missing
        after = run_outcome(new, case, network) if new is not None else missing
        out.append(CaseChange(case["name"], before, after))
    return out
