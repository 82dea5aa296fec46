"""The run's memory: parameter values, block outputs and block metadata (``WorkflowRunContext``).

It keeps the engine's quirks on purpose: a block's reference variable ``<label>`` is a deep copy
of its output with ``output`` set to ``extracted_information``, merged across loop iterations
(failure payloads replace); loop outputs hold :class:`OutputParameter` objects, so ``| tojson``
on them fails as it does in the engine.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any


class OutputParameter:
    """Stands in for the engine's pydantic ``OutputParameter`` inside loop outputs."""

    __slots__ = ("key",)
    #: when the service created the output parameters (at save); the repr shows it
    CREATED = datetime.now(UTC).replace(tzinfo=None)

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        # the engine's pydantic repr, field by field (ids and timestamps are the simulator's own)
        label = self.key.removesuffix("_output")
        return (f"OutputParameter(parameter_type=<ParameterType.OUTPUT: 'output'>, key={self.key!r}, "
                f"description='Output parameter for block {label}', output_parameter_id='op_simulated', "
                f"workflow_id='w_simulated', created_at={self.CREATED!r}, modified_at={self.CREATED!r}, "
                "deleted_at=None)")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutputParameter) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


def public(value: Any) -> Any:
    """The persisted / API form of a value: an ``OutputParameter`` reduced to its key."""
    if isinstance(value, OutputParameter):
        return value.key
    if isinstance(value, dict):
        return {k: public(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [public(v) for v in value]
    return value


class RunContext:
    def __init__(self, request: dict[str, Any], parameters: dict[str, Any]) -> None:
        self.values: dict[str, Any] = dict(parameters)
        self.metadata: dict[str, dict[str, Any]] = {}
        self.run_outputs: dict[str, Any] = {}
        #: ``<label>_output`` → value as recorded, for the run's final outputs
        self.recorded: dict[str, Any] = {}
        #: how many times each block recorded output (a failed execution that recorded none is invalidated)
        self.record_counts: dict[str, int] = {}
        self.title = request.get("title") or ""
        self.wpid = request.get("workflow_permanent_id") or "wpid_simulated"
        self.runtime = {
            "workflow_title": self.title,
            "workflow_id": request.get("workflow_id") or "w_simulated",
            "workflow_permanent_id": self.wpid,
            "workflow_run_id": "wr_simulated",
            "current_date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "browser_session_id": "",
        }

    def record_output(self, label: str, value: Any) -> None:
        """``record_output_parameter_value``: the value later blocks see, and the block reference."""
        key = f"{label}_output"
        self.record_counts[label] = self.record_counts.get(label, 0) + 1
        self.values[key] = value
        self.recorded[key] = value
        ref = copy.deepcopy(value)
        if isinstance(ref, dict) and "extracted_information" in ref:
            ref["output"] = ref.get("extracted_information")
        current = self.values.get(label)
        if (
            isinstance(current, dict) and isinstance(ref, dict)
            and not current.get("failure_reason") and not ref.get("failure_reason")
        ):
            ref = {**current, **ref}
        self.values[label] = ref
        self.run_outputs[label] = ref

    def has_output(self, label: str) -> bool:
        return f"{label}_output" in self.values

    def update_metadata(self, label: str, data: dict[str, Any]) -> None:
        self.metadata.setdefault(label, {}).update(data)

    def namespace(self, label: str) -> dict[str, Any]:
        """``_build_block_parameter_template_data`` for the block ``label``."""
        data = dict(self.values)
        meta = self.metadata.get(label)
        if meta is None:
            meta = {}
        own = data.get(label)
        if isinstance(own, dict):
            meta.update(own)  # the engine updates the stored metadata in place
        data[label] = meta
        for key in ("current_index", "current_item", "current_value"):
            if key in meta:
                data[key] = meta[key]
        for key, value in self.runtime.items():
            data.setdefault(key, value)
        data["workflow_run_outputs"] = self.run_outputs
        data["workflow_run_summary"] = {"outputs": self.run_outputs}
        return data

    def final_outputs(self) -> dict[str, Any] | None:
        """The run's ``outputs``: every recorded output plus the collected extracted information."""
        if not self.recorded:
            return None
        outputs = {key: public(value) for key, value in self.recorded.items()}
        extracted: list[Any] = []
        for value in outputs.values():
            if value is not None:
                extracted.extend(_collect_extracted(value))
        outputs["extracted_information"] = extracted
        return outputs


def _collect_extracted(value: Any) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, dict):
        if value.get("extracted_information") is not None:
            info = value["extracted_information"]
            found.extend(info if isinstance(info, list) else [info])
        else:
            for nested in value.values():
                found.extend(_collect_extracted(nested))
    elif isinstance(value, list):
        for item in value:
            found.extend(_collect_extracted(item))
    return found
